// What every console web page shares: the route it registers with (and the signed-in variant),
// the domain it calls, the cookie session and CSRF checks, and the helpers that turn a request into
// the domain's arguments and a page.

import type { Requester } from '@devplat/domain/accounts';
import type { Actor } from '@devplat/domain/audit';
import { Refusal } from '@devplat/domain/refusal';
import {
  cookie,
  cookieSessions,
  doubleSubmitCsrf,
  type Logger,
  type OperationHandlers,
  type PageApp,
  ProblemError,
  readFormWithLists,
  sessionFormValid,
} from '@devplat/http';
import type { Context, Middleware } from 'koa';
import type { ConsoleDomain } from '../console-domain.ts';
import { refusalProblem } from '../doors.ts';
import type { SignedIn } from '../sessions.ts';
import type { Frame } from './pages.ts';

export const formExpired = () =>
  new ProblemError('CSRF_FAILED', 'This form has expired. Load the page again and resubmit.');

/** The signed-in account and, on a POST, its form (behind sign-in only). */
export const who = (ctx: Context) => ctx.state.who!;
export const form = (ctx: Context) => ctx.state.form!;
export const actor = (ctx: Context): Actor => ({ accountId: who(ctx).account.id, requestId: ctx.state.requestId });
export const requester = (ctx: Context): Requester => ({ requestId: ctx.state.requestId, address: ctx.ip });

export const frame = (signedIn: SignedIn | null, title: string, extra: Partial<Frame> = {}): Frame => ({
  title,
  ...(signedIn ? { signedIn: { displayName: signedIn.account.displayName, csrf: signedIn.session.csrf } } : {}),
  ...extra,
});

/** A refusal shows the form again with its Problem's detail, at its Problem's status. */
export const refused = (ctx: Context, error: unknown) => {
  if (!(error instanceof Refusal)) throw error;
  const problem = refusalProblem(error);
  ctx.set(problem.headers);
  return { status: problem.status, reason: problem.detail };
};

export type WebRoutes = ReturnType<typeof webRoutes>;

export interface WebSettings {
  /** Served over https: Secure cookies. */
  secure: boolean;
  /** The API's base URL (BASE_URL), which the app pages' first-call snippets call. */
  apiBase: string;
  /** Where a stream (the live request log) says why it ended early. */
  logger: Logger;
}

export function webRoutes(route: PageApp['route'], domain: ConsoleDomain, { secure, apiBase, logger }: WebSettings) {
  // The web UI's own sessions: never accepted as an API bearer token (sessions.ts).
  const sessionCookie = cookie({ name: 'console_session', sameSite: 'strict', secure });
  const sessions = cookieSessions(domain.sessions.web, sessionCookie);
  const csrf = doubleSubmitCsrf(cookie({ name: 'console_csrf', sameSite: 'strict', secure }));
  const current = (ctx: Context): Promise<SignedIn | null> =>
    domain.sessions.signedIn(sessions.store, sessionCookie.get(ctx));
  /** Pages behind sign-in; a POST must carry the session's CSRF token. */
  const signedIn: Middleware = async (ctx, next) => {
    const who = await current(ctx);
    if (!who) {
      if (ctx.method === 'GET') return ctx.redirect('/signin');
      throw new ProblemError('NOT_SIGNED_IN', 'Your session has ended. Sign in again.');
    }
    ctx.state.who = who;
    if (ctx.method === 'POST') {
      const form = await readFormWithLists(ctx, ['scopes']);
      if (!sessionFormValid(who.session, form.fields.csrf)) throw formExpired();
      ctx.state.form = form;
    }
    await next();
  };
  return {
    route,
    domain,
    apiBase,
    logger,
    sessions,
    csrf,
    current,
    /** Pages behind sign-in. */
    signedInRoute: (path: string, handlers: OperationHandlers) => route(path, handlers, { guard: signedIn }),
    /** Redirects after a change, with a notice shown once on the next page. */
    done: async (ctx: Context, location: string, notice: string) => {
      await sessions.store.notify(who(ctx).token, notice);
      ctx.redirect(location);
      ctx.status = 303;
    },
    takeNotice: (ctx: Context) => sessions.store.takeNotice(who(ctx).token),
  };
}

/** A button on an app's page: the change, then back to the page with what it did. */
export function appAction(
  { signedInRoute, done }: WebRoutes,
  path: string,
  change: (ctx: Context, clientId: string) => Promise<string>,
): void {
  signedInRoute(`/apps/:clientId${path}`, {
    POST: async (ctx) => {
      const clientId = ctx.params.clientId as string;
      await done(ctx, `/apps/${clientId}`, await change(ctx, clientId));
    },
  });
}
