// The API's own key in Koa's ctx.state (the common ones: @devplat/http state.ts): the verified
// bearer token and its profile, set by `authenticate` before the protected operations run.
import type { Authenticated } from './routes/protected.ts';

declare module 'koa' {
  interface DefaultState {
    auth?: Authenticated;
  }
}
