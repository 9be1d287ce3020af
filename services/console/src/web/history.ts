// The console web UI's app history: /apps/{client_id}/history, newest first, a page at a time
// ("Older" carries the cursor), the same entries as GET /api/apps/{client_id}/history.

import type { AppHistoryPage } from '@devplat/domain/workflows';
import { type Html, html, sendPage } from '@devplat/http';
import { frame, type WebRoutes, who } from './context.ts';
import { type Frame, layout, table } from './pages.ts';
import { timeElement } from './time.ts';

/** Where a page of the history is: the newest or after a cursor, and the page size asked for, if any. */
export interface HistoryPlace {
  first: boolean;
  limit?: string | undefined;
}

export function historyPage(view: Frame, { app, entries, nextCursor }: AppHistoryPage, place: HistoryPlace): Html {
  const base = `/apps/${app.clientId}`;
  const rows = entries.map(
    (entry) =>
      html`<tr><td>${timeElement(entry.at)}</td><td>${entry.actor.type === 'platform' ? 'the platform' : entry.actor.email}</td>
<td>${entry.summary}</td><td>${entry.request_id && html`<code>${entry.request_id}</code>`}</td></tr>`,
  );
  // One value: the template refuses an interpolation right after "=" (an unquoted attribute).
  const olderHref =
    nextCursor &&
    `${base}/history?${new URLSearchParams({ ...(place.limit && { limit: place.limit }), cursor: nextCursor })}`;
  const older = olderHref && html`<a href="${olderHref}" rel="next">Older</a>`;
  const newest = !place.first && html`<a href="${base}/history">Newest</a>`;
  return layout(
    view,
    html`<h1>History of ${app.name}</h1>
<p><a href="${base}">Back to ${app.name}</a></p>
<p>What was done to this app, newest first, by you (your account's e-mail) or by the platform. The request ID is the
<code>X-Request-ID</code> of the request that made the change.</p>
${table('App history', ['When', 'Who', 'What', 'Request ID'], rows, html`<p>${place.first ? 'Nothing recorded yet.' : 'Nothing older.'}</p>`)}
${(older || newest) && html`<nav aria-label="History pages"><p>${newest} ${older}</p></nav>`}`,
  );
}

export function historyPages({ signedInRoute, domain: { history } }: WebRoutes): void {
  signedInRoute('/apps/:clientId/history', {
    GET: async (ctx) => {
      const page = await history.ofApp(who(ctx).account.id, ctx.params.clientId as string, ctx.query);
      const { cursor, limit } = ctx.query;
      const place = { first: cursor === undefined, limit: typeof limit === 'string' ? limit : undefined };
      sendPage(ctx, 200, historyPage(frame(who(ctx), `History of ${page.app.name}`), page, place));
    },
  });
}
