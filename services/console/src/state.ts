// The console's own keys in Koa's ctx.state (the common ones: @devplat/http state.ts): the
// signed-in account, set by the sign-in middleware of the API and the web UI (on the API, the
// caller with the credential it came with), and on the web UI a POST's form, read once there to
// check its CSRF token.
import type { readFormWithLists } from '@devplat/http';
import type { ApiCaller } from './api/context.ts';
import type { SignedIn } from './sessions.ts';

/** A submitted form, its lists read as lists. */
export type Form = Awaited<ReturnType<typeof readFormWithLists>>;

declare module 'koa' {
  interface DefaultState {
    who?: SignedIn;
    /** The console API's signed-in caller (set by its sign-in guard, api/context.ts). */
    caller?: ApiCaller;
    form?: Form;
  }
}
