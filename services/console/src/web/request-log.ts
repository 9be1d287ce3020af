// The console web UI's request log of an app: /apps/{client_id}/requests, newest first, a page at a
// time ("Older" carries the cursor and the filters), filtered by a GET form (status class,
// operation, error code): the same entries as GET /api/apps/{client_id}/requests.
//
// Live: the first page names /apps/{client_id}/requests/stream (data-live-log), which the console's
// script (assets/console.js) follows with an EventSource, putting each new call at the top. That
// route is the API's /api/apps/{client_id}/requests/stream, the one devplat logs tail follows, behind
// the cookie session instead of a bearer token: the same requestLog.follow and streamRequests, with
// the page's filters and `after` its newest entry, so that nothing answered in between is missed.
// Without scripts the page is the paged table it always was.

import type { RequestLogEntryView } from '@devplat/contract';
import { type Html, html, scrollRegion, sendPage } from '@devplat/http';
import {
  type RequestLogFilterValues,
  type RequestLogPage,
  requestOperations,
  statusClasses,
} from '@devplat/request-log';
// The stream devplat logs tail reads, reused as it is (see above).
import { streamRequests } from '../api/request-log.ts';
import { frame, type WebRoutes, who } from './context.ts';
import { type Frame, layout } from './pages.ts';
import { readableTime } from './time.ts';

/** Where a page of the log is: the newest or after a cursor, and the page size asked for, if any. */
export interface RequestLogPlace {
  first: boolean;
  limit?: string | undefined;
}

/** What each app's log keeps, as the page says it. */
export interface RequestLogBoundsText {
  maxEntries: number;
  maxFailedAuthentications: number;
  retentionHours: number;
}

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** As time.ts shows times, to the second: an app makes many calls a minute. */
const secondsTime = (iso: string): Html => {
  const at = new Date(iso);
  const text = readableTime(at).replace(/ UTC$/, `:${twoDigits(at.getUTCSeconds())} UTC`);
  return html`<time datetime="${iso}" title="${iso}">${text}</time>`;
};

/** A select of the filter's values, "any" first, the one given selected. */
function choice(name: string, label: string, values: readonly string[], selected: string | undefined): Html {
  const options = values.map(
    (value) => html`<option value="${value}" ${value === selected && html`selected`}>${value}</option>`,
  );
  return html`<label for="${name}">${label}</label><select id="${name}" name="${name}"><option value="">any</option>${options}</select>`;
}

function filterForm(base: string, filters: RequestLogFilterValues, limit: string | undefined): Html {
  return html`<form method="get" action="${base}/requests" aria-label="Filter the request log">
${choice('status', 'Status', statusClasses, filters.status)}
${choice('operation', 'Operation', requestOperations, filters.operation)}
<label for="error">Error code</label><input id="error" name="error" type="text" value="${filters.error ?? ''}" placeholder="invalid_client, INVALID_TOKEN…" autocomplete="off">
${limit && html`<input type="hidden" name="limit" value="${limit}">`}
<button type="submit">Filter</button> <a href="${base}/requests">Clear filters</a></form>`;
}

function details(entry: RequestLogEntryView): Html {
  const parts = [
    !entry.client_authenticated && html`<strong>client authentication failed</strong>`,
    entry.grant_type && html`<code>${entry.grant_type}</code>`,
    entry.subject && html`subject <code>${entry.subject}</code>`,
  ].filter(Boolean);
  return html`${parts.map((part, index) => html`${index > 0 && ', '}${part}`)}`;
}

export function requestLogPage(
  view: Frame,
  { app, entries, nextCursor, filters }: RequestLogPage,
  place: RequestLogPlace,
  bounds: RequestLogBoundsText,
): Html {
  const base = `/apps/${app.clientId}`;
  const rows = entries.map(
    (entry) =>
      html`<tr><td>${secondsTime(entry.at)}</td><td>${entry.operation}</td><td>${entry.status}</td>
<td>${entry.error && html`<code>${entry.error}</code>`}</td><td><code>${entry.request_id}</code></td>
<td>${entry.latency_ms} ms</td><td>${details(entry)}</td></tr>`,
  );
  const kept = { ...filters, ...(place.limit && { limit: place.limit }) };
  // One value: the template refuses an interpolation right after "=" (an unquoted attribute).
  const olderHref = nextCursor && `${base}/requests?${new URLSearchParams({ ...kept, cursor: nextCursor })}`;
  const older = olderHref && html`<a href="${olderHref}" rel="next">Older</a>`;
  const newestQuery = new URLSearchParams(kept).toString();
  const newestHref = `${base}/requests${newestQuery ? `?${newestQuery}` : ''}`;
  const newest = !place.first && html`<a href="${newestHref}">Newest</a>`;
  const filtered = Object.keys(filters).length > 0;
  const none = place.first
    ? filtered
      ? 'No call matches these filters.'
      : 'No calls recorded yet.'
    : 'Nothing older.';
  const table = html`<table><thead><tr><th>When</th><th>Operation</th><th>Status</th><th>Error</th><th>Request ID</th><th>Latency</th><th>Details</th></tr></thead><tbody>${rows}</tbody></table>`;
  // The first page goes live (with scripts): the table is there even while empty, for the new rows.
  const streamQuery = new URLSearchParams({ ...filters, ...(entries[0] && { after: entries[0].id }) }).toString();
  const streamHref = `${base}/requests/stream${streamQuery ? `?${streamQuery}` : ''}`;
  const log = place.first
    ? html`<p id="live-status" role="status"></p>
${scrollRegion('Request log', table, html`data-live-log="${streamHref}" ${!rows.length && html`hidden`}`)}
${!rows.length && html`<p id="log-empty">${none}</p>`}`
    : rows.length
      ? scrollRegion('Request log', table)
      : html`<p>${none}</p>`;
  return layout(
    view,
    html`<h1>Request log of ${app.name}</h1>
<p><a href="${base}">Back to ${app.name}</a> · <a href="${base}/history">History</a></p>
<p>This app's calls to the token and revocation endpoints, <code>/cities</code> and <code>/me</code>, newest first: the
newest ${bounds.maxEntries}, for ${bounds.retentionHours} hours. Calls that named this app's client id but failed client
authentication (a wrong secret, say) are shown too, marked as such: the newest ${bounds.maxFailedAuthentications} of them,
kept apart so that nobody else's can push your calls out. The request ID is the answer's <code>X-Request-ID</code>.
Watch it live with <code>devplat logs tail ${app.clientId}</code>.</p>
${filterForm(base, filters, place.limit)}
${log}
${(older || newest) && html`<nav aria-label="Request log pages"><p>${newest} ${older}</p></nav>`}`,
  );
}

export function requestLogPages({ signedInRoute, domain: { requestLog }, logger }: WebRoutes): void {
  signedInRoute('/apps/:clientId/requests', {
    GET: async (ctx) => {
      const page = await requestLog.list(who(ctx).account.id, ctx.params.clientId as string, ctx.query);
      const { cursor, limit } = ctx.query;
      const place = { first: cursor === undefined, limit: typeof limit === 'string' && limit ? limit : undefined };
      const view = frame(who(ctx), `Request log of ${page.app.name}`);
      sendPage(ctx, 200, requestLogPage(view, page, place, requestLog.bounds));
    },
  });
  signedInRoute('/apps/:clientId/requests/stream', {
    GET: async (ctx) => {
      const clientId = ctx.params.clientId as string;
      const feed = await requestLog.follow(who(ctx).account.id, clientId, ctx.query, ctx.get('Last-Event-ID'));
      streamRequests(ctx, feed, logger);
    },
  });
}
