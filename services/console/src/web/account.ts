// The console web UI's account pages: sign in, register, sign out, and the account's own page
// (/account): who is signed in, a link to the API keys, and the account's history, newest first, a
// page at a time, the same entries as GET /api/account/history.
import type { Account } from '@devplat/db';
import type { AccountHistoryPage } from '@devplat/domain/workflows';
import { type Html, html, readFormWithLists, sendPage } from '@devplat/http';
import type { Context } from 'koa';
import { formExpired, frame, refused, requester, type WebRoutes, who } from './context.ts';
import { type Frame, layout, registerPage, signInPage, table } from './pages.ts';
import { timeElement } from './time.ts';

/** Where a page of the history is: the newest or after a cursor, and the page size asked for, if any. */
interface HistoryPlace {
  first: boolean;
  limit?: string | undefined;
}

export function accountPage(
  view: Frame,
  account: Account,
  { entries, nextCursor }: AccountHistoryPage,
  place: HistoryPlace,
): Html {
  const rows = entries.map(
    (entry) =>
      html`<tr><td>${timeElement(entry.at)}</td><td>${entry.actor.type === 'platform' ? 'the platform' : entry.actor.email}</td>
<td>${entry.summary}</td><td>${entry.request_id && html`<code>${entry.request_id}</code>`}</td></tr>`,
  );
  // One value: the template refuses an interpolation right after "=" (an unquoted attribute).
  const olderHref =
    nextCursor && `/account?${new URLSearchParams({ ...(place.limit && { limit: place.limit }), cursor: nextCursor })}`;
  const older = olderHref && html`<a href="${olderHref}" rel="next">Older</a>`;
  const newest = !place.first && html`<a href="/account">Newest</a>`;
  const empty = html`<p>${place.first ? 'Nothing recorded yet.' : 'Nothing older.'}</p>`;
  return layout(
    view,
    html`<h1>Your account</h1>
<table class="facts"><tbody>
<tr><th>Email</th><td>${account.email}</td></tr>
<tr><th>Display name</th><td>${account.displayName}</td></tr>
<tr><th>Registered</th><td>${timeElement(account.createdAt.toISOString())}</td></tr>
</tbody></table>
<p><a href="/api-keys">API keys</a>: keys for scripts, CI and devplat to use the console API as you.</p>
<h2>History</h2>
<p>What was done to your account, newest first: registration, API keys created and revoked (by you, from a signed-in
session), and what the platform did. The request ID is the <code>X-Request-ID</code> of the request that made the change.</p>
${table('Account history', ['When', 'Who', 'What', 'Request ID'], rows, empty)}
${(older || newest) && html`<nav aria-label="History pages"><p>${newest} ${older}</p></nav>`}`,
  );
}

export function accountPages({
  route,
  signedInRoute,
  domain: { accounts, history },
  sessions,
  csrf,
  current,
}: WebRoutes): void {
  const startSession = async (ctx: Context, accountId: string) => {
    await sessions.start(ctx, { accountId });
    csrf.clear(ctx);
    ctx.redirect('/apps');
    ctx.status = 303;
  };
  /** The anonymous form's fields, once its double-submit CSRF token checks out. */
  const anonymousForm = async (ctx: Context) => {
    const { fields } = await readFormWithLists(ctx, []);
    if (!csrf.valid(ctx, fields.csrf)) throw formExpired();
    return fields;
  };

  route('/', { GET: async (ctx) => ctx.redirect((await current(ctx)) ? '/apps' : '/signin') });
  route('/signin', {
    GET: (ctx) => sendPage(ctx, 200, signInPage(frame(null, 'Sign in'), csrf.issue(ctx))),
    POST: async (ctx) => {
      const fields = await anonymousForm(ctx);
      try {
        const account = await accounts.authenticate({ email: fields.email, password: fields.password }, requester(ctx));
        await startSession(ctx, account.id);
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        sendPage(ctx, status, signInPage(frame(null, 'Sign in', { error: reason }), csrf.issue(ctx), fields.email));
      }
    },
  });
  route('/register', {
    GET: (ctx) => sendPage(ctx, 200, registerPage(frame(null, 'Register'), csrf.issue(ctx))),
    POST: async (ctx) => {
      const fields = await anonymousForm(ctx);
      const input = { email: fields.email, password: fields.password, display_name: fields.display_name };
      try {
        const account = await accounts.register(input, requester(ctx));
        await startSession(ctx, account.id);
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        sendPage(ctx, status, registerPage(frame(null, 'Register', { error: reason }), csrf.issue(ctx), input));
      }
    },
  });
  signedInRoute('/account', {
    GET: async (ctx) => {
      const page = await history.ofAccount(who(ctx).account.id, ctx.query);
      const { cursor, limit } = ctx.query;
      const place = { first: cursor === undefined, limit: typeof limit === 'string' ? limit : undefined };
      sendPage(ctx, 200, accountPage(frame(who(ctx), 'Your account'), who(ctx).account, page, place));
    },
  });
  signedInRoute('/signout', {
    POST: async (ctx) => {
      await sessions.end(ctx);
      ctx.redirect('/signin');
      ctx.status = 303;
    },
  });
}
