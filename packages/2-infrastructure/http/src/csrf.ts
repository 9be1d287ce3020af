// CSRF checks of the page apps' forms. A signed-in form carries its session's token; the forms
// before sign-in (sign-in, register) carry a double-submit token that is also in a SameSite=Strict
// cookie. Tokens are compared in constant time.
import { randomToken, sameSecret } from '@devplat/keys';
import type { Context } from 'koa';
import type { Cookie } from './cookies.ts';

/** True when a signed-in form carries its session's CSRF token; never without a session. */
export function sessionFormValid(session: { csrf: string } | null | undefined, presented: string | undefined): boolean {
  return sameSecret(presented, session?.csrf);
}

export interface DoubleSubmitCsrf {
  /** A new token, set in the cookie: the form carries it too. */
  issue(ctx: Context): string;
  /** True when the form's token is the cookie's. */
  valid(ctx: Context, presented: string | undefined): boolean;
  /** Once signed in, the session's token takes over. */
  clear(ctx: Context): void;
}

/** The double-submit token of the forms shown before sign-in, kept in `tokenCookie`. */
export function doubleSubmitCsrf(tokenCookie: Cookie): DoubleSubmitCsrf {
  return {
    issue(ctx) {
      const token = randomToken();
      tokenCookie.set(ctx, token);
      return token;
    },
    valid: (ctx, presented) => sameSecret(presented, tokenCookie.get(ctx)),
    clear: (ctx) => tokenCookie.clear(ctx),
  };
}
