// The console's app pages: the list, the form to make or edit one, its page (secrets, webhooks,
// activity, the danger zone) and the deletion's confirmation, in the shared layout (pages.ts).
import type { AppView, DeliveryView } from '@devplat/contract';
import { scopeDescriptions, scopeNames } from '@devplat/contract';
import type { AppActivity } from '@devplat/domain/apps';
import { type Html, type HtmlValue, hiddenField, html, scrollRegion } from '@devplat/http';
import { type BarChart, barChart } from './chart.ts';
import { copyButton } from './copy.ts';
import { firstCallSection } from './first-call.ts';
import { action, type Frame, field, layout, table } from './pages.ts';
import { timeElement } from './time.ts';

const appStatusText = (status: AppView['status']) => (status === 'suspended' ? 'Suspended by the platform' : status);

export function appsPage(frame: Frame, apps: AppView[]): Html {
  const rows = apps.map(
    (app) =>
      html`<tr><td><a href="/apps/${app.client_id}">${app.name}</a></td><td><code>${app.client_id}</code></td><td>${appStatusText(app.status)}</td><td>${app.scopes.join(' ')}</td></tr>`,
  );
  return layout(
    frame,
    html`<h1>Your sandbox apps</h1><p><a href="/apps/new">Create app</a></p>
${table('Your apps', ['Name', 'Client ID', 'Status', 'Scopes'], rows, html`<p>You have no apps yet.</p>`)}
<p><small>Production credentials are not available: only sandbox apps exist until a security review opens production.</small></p>`,
  );
}

export interface AppFormValues {
  name?: string;
  /** One URI per line, as the textarea holds them. */
  redirect_uris?: string;
  scopes?: string[];
  webhook_url?: string;
}

/** Name, redirect URIs and scopes: the fields creating and editing an app share. */
function appFields(values: AppFormValues): Html {
  const scopeBoxes = scopeNames.map(
    (
      scope,
    ) => html`<div><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}" ${values.scopes?.includes(scope) && html`checked`}>
<label class="inline" for="scope-${scope}">${scope}</label> <small>${scopeDescriptions[scope]}</small></div>`,
  );
  return html`${field('name', 'Name', 'text', values.name, html`required maxlength="100"`)}
<label for="redirect_uris">Redirect URIs</label>
<textarea id="redirect_uris" name="redirect_uris" rows="3">${values.redirect_uris}</textarea>
<small>One per line, at most five: https:// with a host, or http://127.0.0.1, http://[::1], http://localhost on any port. Matched exactly.</small>
<fieldset><legend>Scopes</legend>${scopeBoxes}</fieldset>`;
}

export function newAppPage(frame: Frame, csrf: string, values: AppFormValues = {}): Html {
  return layout(
    frame,
    html`<h1>Create a sandbox app</h1>
<form method="post" action="/apps">${hiddenField('csrf', csrf)}
${appFields(values)}
${field('webhook_url', 'Webhook URL', 'url', values.webhook_url)}
<small>Optional. Receives signed consent.granted and consent.revoked events.</small><br>
<button type="submit">Create app</button></form>`,
  );
}

export function editAppPage(frame: Frame, csrf: string, app: AppView, values: AppFormValues): Html {
  return layout(
    frame,
    html`<h1>Edit ${app.name}</h1>
<p>Client ID <code>${app.client_id}</code> stays the same. A redirect URI you remove stops matching at once.
A scope you remove is granted to no new token; the consents that hold a removed user scope end
(the app gets <code>consent.revoked</code>, reason <code>scope_removed</code>) and their tokens stop on
their next call, while app tokens already issued keep a removed app scope until they expire.</p>
<form method="post" action="/apps/${app.client_id}/edit">${hiddenField('csrf', csrf)}
${appFields(values)}
<button type="submit">Save changes</button> <a href="/apps/${app.client_id}">Cancel</a></form>`,
  );
}

export function deleteAppPage(frame: Frame, csrf: string, app: AppView, activeConsents: number): Html {
  return layout(
    frame,
    html`<h1>Delete ${app.name}?</h1>
<ul>
<li>Every token of the app stops on its next call, and it can get no new one.</li>
<li>Its ${activeConsents} active ${activeConsents === 1 ? 'consent ends' : 'consents end'}: the app gets a <code>consent.revoked</code> event (reason <code>app_deleted</code>) for each.</li>
<li>The client ID <code>${app.client_id}</code> is never used again. This cannot be undone; to stop the app for a while, disable it instead.</li>
</ul>
${action(`/apps/${app.client_id}/delete`, csrf, 'Delete app for good')} <a href="/apps/${app.client_id}">Cancel</a>`,
  );
}

export interface AppPageExtras {
  /** The API's base URL (BASE_URL), for the first call's snippets. */
  apiBase: string;
  /** A secret just made: shown on this one page and never again. */
  newSecret?: string | undefined;
  deliveries: DeliveryView[];
  /** The last 30 days, for the charts; absent on the page just after creation. */
  activity?: AppActivity & { days: string[] };
}

/** A chart's series: its name, its colour and its counts by day (a day not there: 0). */
type CountsSeries = readonly [name: string, colour: string, counts: Record<string, number> | undefined];

/** Consents and deliveries per day over the last 30 days, as two charts. */
function activityCharts(activity: AppPageExtras['activity']): HtmlValue {
  if (!activity) return null;
  const { days } = activity;
  const chart = (title: string, layout: BarChart['layout'], series: CountsSeries[]) =>
    barChart({
      title,
      days,
      layout,
      series: series.map(([name, colour, counts]) => ({ name, colour, values: days.map((day) => counts?.[day] ?? 0) })),
    });
  const { consents, deliveries } = activity;
  return html`<h2>Last 30 days</h2>
${chart('Consents per day, last 30 days', 'grouped', [
  ['granted', '#2e7d32', consents.granted],
  ['withdrawn', '#c62828', consents.withdrawn],
  ['ended otherwise', '#ef6c00', consents.ended],
])}
${chart('Webhook deliveries per day by outcome, last 30 days', 'stacked', [
  ['succeeded', '#2e7d32', deliveries.succeeded],
  ['failed', '#c62828', deliveries.failed],
  ['pending', '#9e9e9e', deliveries.pending],
])}
<p><small>"Ended otherwise": a token revoked, a code or refresh token replayed, a scope removed. Deliveries count by the day they were made and their outcome now.</small></p>`;
}

function newSecretBox(secret: string | undefined): HtmlValue {
  return (
    secret &&
    html`<div class="secret-box" role="region" aria-label="New client secret"><p><strong>Copy this client secret now: it is shown only once.</strong></p><p class="secret" id="client-secret" data-testid="client-secret">${secret}</p>
${copyButton('client-secret', 'client secret')}</div>`
  );
}

/**
 * The webhook signing secret, masked until the developer opens it: a <details>, closed with or
 * without scripts, so that nobody looking at the screen reads it. Copy works while it is closed.
 */
const webhookSecret = (secret: string | null): HtmlValue =>
  secret === null
    ? 'none'
    : html`<details><summary>Reveal the signing secret</summary><code class="secret" id="webhook-secret" data-testid="webhook-secret">${secret}</code></details>
${copyButton('webhook-secret', 'webhook signing secret')}`;

/** Disable for an active app, Enable for a disabled one; a suspended app is the platform's to lift. */
function dangerZoneStatus(app: AppView, base: string, csrf: string): HtmlValue {
  if (app.status === 'active') return action(`${base}/disable`, csrf, 'Disable app');
  if (app.status === 'suspended') {
    return html`<p><strong>Suspended by the platform:</strong> its tokens stop working and it cannot get new ones; its consents stand and work again once the suspension is lifted. Only the platform can lift it: contact support.</p>`;
  }
  return html`<p>This app is disabled: its tokens stop working and it cannot get new ones.</p>${action(`${base}/enable`, csrf, 'Enable app')}`;
}

export function appPage(frame: Frame, csrf: string, app: AppView, extras: AppPageExtras): Html {
  const base = `/apps/${app.client_id}`;
  const active = app.status === 'active';
  const secrets = app.secrets.map(
    (secret) =>
      html`<tr><td><code>${secret.secret_id}</code></td><td>${timeElement(secret.created_at)}</td><td>${secret.status}</td>
<td>${secret.status === 'active' ? action(`${base}/secrets/${secret.secret_id}/revoke`, csrf, 'Revoke', html`aria-label="Revoke secret ${secret.secret_id}"`) : secret.revoked_at && timeElement(secret.revoked_at)}</td></tr>`,
  );
  const failed = extras.deliveries.map(
    (delivery) =>
      html`<tr><td><code>${delivery.delivery_id}</code></td><td>${delivery.event_type}${delivery.test && ' (test)'}</td>
<td>${delivery.attempts}</td><td>${delivery.last_status_code ?? delivery.last_error}</td><td>${timeElement(delivery.created_at)}</td>
<td>${action(`${base}/deliveries/${delivery.delivery_id}/replay`, csrf, 'Replay', html`aria-label="Replay delivery ${delivery.delivery_id}"`)}</td></tr>`,
  );
  const redirectUris = app.redirect_uris.map((uri, index) => html`${index > 0 && html`<br>`}<code>${uri}</code>`);
  const webhookForm =
    active &&
    html`<form method="post" action="${base}/webhook">${hiddenField('csrf', csrf)}
${field('webhook_url', 'Webhook URL', 'url', app.webhook_url ?? '')}
<small>An https endpoint for consent.granted and consent.revoked; leave empty to remove it.</small><br>
<button type="submit">Save webhook URL</button></form>`;
  return layout(
    frame,
    html`<h1>${app.name}</h1>
${newSecretBox(extras.newSecret)}
<table class="facts"><tbody>
<tr><th>Client ID</th><td><code id="client-id" data-testid="client-id">${app.client_id}</code> ${copyButton('client-id', 'client ID')}</td></tr>
<tr><th>Environment</th><td>${app.environment}</td></tr><tr><th>Status</th><td>${appStatusText(app.status)}</td></tr>
<tr><th>Created</th><td>${timeElement(app.created_at)}</td></tr>
<tr><th>Scopes</th><td>${app.scopes.join(' ')}</td></tr>
<tr><th>Redirect URIs</th><td>${redirectUris.length ? redirectUris : 'none'}</td></tr>
<tr><th>Webhook URL</th><td>${app.webhook_url ? html`<code>${app.webhook_url}</code>` : 'none'}</td></tr>
<tr><th>Webhook signing secret</th><td>${webhookSecret(app.webhook_signing_secret)}</td></tr>
</tbody></table>
${active && html`<p><a href="${base}/edit">Edit name, redirect URIs and scopes</a></p>`}
${firstCallSection(app, extras.apiBase)}
<h2>Client secrets</h2>
<p>Rotate: add a new secret, move your app to it, then revoke the old one. Both work until then (at most two at a time).</p>
${scrollRegion('Client secrets', html`<table><thead><tr><th>Secret ID</th><th>Created</th><th>Status</th><th><span class="visually-hidden">Revoke</span></th></tr></thead><tbody>${secrets}</tbody></table>`)}
${active && action(`${base}/secrets`, csrf, 'Rotate secret')}
<h2 id="webhooks">Webhooks</h2>
${webhookForm}
${active && app.webhook_url ? action(`${base}/webhooks/test`, csrf, 'Send test webhook') : html`<p>Set a webhook URL to receive consent events.</p>`}
<h3>Failed deliveries</h3>
${table('Failed deliveries', ['Delivery', 'Event', 'Attempts', 'Last answer', 'Created', ''], failed, html`<p>No failed deliveries.</p>`)}
${activityCharts(extras.activity)}
<p><a href="${base}/history">History</a>: every change to this app, who made it (you or the platform) and when.</p>
<h2>Danger zone</h2>
${dangerZoneStatus(app, base, csrf)}
<a href="${base}/delete">Delete app…</a>`,
  );
}

/** Which page of the players list is shown: its cursor (none: the first) and the page size asked for, if any. */
