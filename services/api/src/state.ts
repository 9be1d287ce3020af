// The API's own keys in Koa's ctx.state (the common ones: @devplat/http state.ts): the verified
// bearer token and its profile, set by `authenticate` before the protected operations run.
import type { AccessToken } from './bearer.ts';
import type { Authenticated } from './routes/protected.ts';

declare module 'koa' {
  interface DefaultState {
    auth?: Authenticated;
    /** The bearer token once verified, before liveness is checked: whose call it is, for the request log. */
    verifiedToken?: AccessToken;
    /** The client of a token of ours that verified but had expired (refused), for the request log. */
    expiredTokenClientId?: string | undefined;
  }
}
