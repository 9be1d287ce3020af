// The console's pages: plain HTML with labelled controls and no scripts. Every value is escaped.

import type { DeliveryView } from '@devplat/contract';
import { scopes as scopeCatalogue, scopeDescriptions } from '@devplat/contract';
import type { AppView } from '../domain/apps.ts';
import type { PlayerView } from '../domain/players.ts';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const html = (value: string | number | null | undefined) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => escapes[c] as string);

const style = `body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
nav{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.6rem}nav form{margin-left:auto}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=email],input[type=password],input[type=url],textarea{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
button{font-size:.95rem;padding:.4rem 1rem;margin:.6rem .4rem 0 0}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.35rem;border-bottom:1px solid #eee;vertical-align:top}code,.secret{font-family:monospace;word-break:break-all}
.error{color:#a00}.notice{background:#eef7ee;padding:.6rem}.secret-box{background:#fff6d6;padding:.8rem;border:1px solid #e0c050}
.inline{display:inline}small{color:#555}`;

export interface Frame {
  title: string;
  signedIn?: { displayName: string; csrf: string };
  notice?: string;
  error?: string;
}

export function layout(frame: Frame, body: string): string {
  const nav = frame.signedIn
    ? `<nav aria-label="Console"><strong>Developer console</strong><a href="/apps">Apps</a><a href="/players">Sandbox players</a>
<form method="post" action="/signout"><input type="hidden" name="csrf" value="${html(frame.signedIn.csrf)}">
<span>${html(frame.signedIn.displayName)}</span> <button type="submit">Sign out</button></form></nav>`
    : '<nav aria-label="Console"><strong>Developer console</strong></nav>';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${html(frame.title)} · Developer console</title><style>${style}</style></head><body>${nav}<main>
${frame.notice ? `<p class="notice" role="status">${html(frame.notice)}</p>` : ''}
${frame.error ? `<p class="error" role="alert">${html(frame.error)}</p>` : ''}
${body}</main></body></html>`;
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${html(value)}">`;
const field = (id: string, label: string, type: string, value = '', extra = '') =>
  `<label for="${id}">${label}</label><input id="${id}" name="${id}" type="${type}" value="${html(value)}" ${extra}>`;
/** A one-button form: every state change is a POST with the session's CSRF token. */
const action = (path: string, csrf: string, label: string, extra = '') =>
  `<form class="inline" method="post" action="${html(path)}">${hidden('csrf', csrf)}<button type="submit" ${extra}>${html(label)}</button></form>`;

export function signInPage(frame: Frame, csrf: string, email = ''): string {
  return layout(
    frame,
    `<h1>Sign in to the developer console</h1>
<form method="post" action="/signin">${hidden('csrf', csrf)}
${field('email', 'Email', 'email', email, 'autocomplete="username" required')}
${field('password', 'Password', 'password', '', 'autocomplete="current-password" required')}
<button type="submit">Sign in</button></form>
<p>No account yet? <a href="/register">Register a developer account</a>.</p>`,
  );
}

export function registerPage(frame: Frame, csrf: string, values: { email?: string; display_name?: string } = {}) {
  return layout(
    frame,
    `<h1>Register a developer account</h1>
<form method="post" action="/register">${hidden('csrf', csrf)}
${field('email', 'Email', 'email', values.email, 'autocomplete="email" required')}
${field('display_name', 'Display name', 'text', values.display_name, 'required maxlength="64"')}
${field('password', 'Password', 'password', '', 'autocomplete="new-password" required minlength="12"')}
<small>At least 12 characters.</small><br>
<button type="submit">Create account</button></form>
<p>Already registered? <a href="/signin">Sign in</a>.</p>`,
  );
}

export function appsPage(frame: Frame, apps: AppView[]): string {
  const rows = apps
    .map(
      (app) =>
        `<tr><td><a href="/apps/${html(app.client_id)}">${html(app.name)}</a></td><td><code>${html(app.client_id)}</code></td><td>${html(app.status)}</td><td>${html(app.scopes.join(' '))}</td></tr>`,
    )
    .join('');
  return layout(
    frame,
    `<h1>Your sandbox apps</h1><p><a href="/apps/new">Create app</a></p>
${apps.length ? `<table><thead><tr><th>Name</th><th>Client ID</th><th>Status</th><th>Scopes</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>You have no apps yet.</p>'}
<p><small>Production credentials are not available: only sandbox apps exist until a security review opens production.</small></p>`,
  );
}

export interface NewAppValues {
  name?: string;
  redirect_uris?: string;
  scopes?: string[];
  webhook_url?: string;
}

export function newAppPage(frame: Frame, csrf: string, values: NewAppValues = {}): string {
  const scopeBoxes = Object.keys(scopeCatalogue)
    .map((scope) => {
      const checked = values.scopes?.includes(scope) ? 'checked' : '';
      return `<div><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}" ${checked}>
<label class="inline" for="scope-${scope}">${scope}</label> <small>${html(scopeDescriptions[scope as keyof typeof scopeDescriptions])}</small></div>`;
    })
    .join('');
  return layout(
    frame,
    `<h1>Create a sandbox app</h1>
<form method="post" action="/apps">${hidden('csrf', csrf)}
${field('name', 'Name', 'text', values.name, 'required maxlength="100"')}
<label for="redirect_uris">Redirect URIs</label>
<textarea id="redirect_uris" name="redirect_uris" rows="3">${html(values.redirect_uris)}</textarea>
<small>One per line, at most five: https:// with a host, or http://127.0.0.1, http://[::1], http://localhost on any port. Matched exactly.</small>
<fieldset><legend>Scopes</legend>${scopeBoxes}</fieldset>
${field('webhook_url', 'Webhook URL', 'url', values.webhook_url)}
<small>Optional. Receives signed consent.granted and consent.revoked events.</small><br>
<button type="submit">Create app</button></form>`,
  );
}

export interface AppPageExtras {
  /** A secret just made: shown on this one page and never again. */
  newSecret?: string;
  deliveries: DeliveryView[];
}

export function appPage(frame: Frame, csrf: string, app: AppView, extras: AppPageExtras): string {
  const base = `/apps/${app.client_id}`;
  const active = app.status === 'active';
  const secrets = app.secrets
    .map(
      (secret) =>
        `<tr><td><code>${html(secret.secret_id)}</code></td><td>${html(secret.created_at)}</td><td>${html(secret.status)}</td>
<td>${secret.status === 'active' ? action(`${base}/secrets/${secret.secret_id}/revoke`, csrf, 'Revoke', `aria-label="Revoke secret ${html(secret.secret_id)}"`) : html(secret.revoked_at)}</td></tr>`,
    )
    .join('');
  const failed = extras.deliveries
    .map(
      (delivery) =>
        `<tr><td><code>${html(delivery.delivery_id)}</code></td><td>${html(delivery.event_type)}${delivery.test ? ' (test)' : ''}</td>
<td>${html(delivery.attempts)}</td><td>${html(delivery.last_status_code ?? delivery.last_error)}</td><td>${html(delivery.created_at)}</td>
<td>${action(`${base}/deliveries/${delivery.delivery_id}/replay`, csrf, 'Replay', `aria-label="Replay delivery ${html(delivery.delivery_id)}"`)}</td></tr>`,
    )
    .join('');
  return layout(
    frame,
    `<h1>${html(app.name)}</h1>
${extras.newSecret ? `<div class="secret-box" role="region" aria-label="New client secret"><p><strong>Copy this client secret now: it is shown only once.</strong></p><p class="secret" data-testid="client-secret">${html(extras.newSecret)}</p></div>` : ''}
<table><tbody>
<tr><th>Client ID</th><td><code data-testid="client-id">${html(app.client_id)}</code></td></tr>
<tr><th>Environment</th><td>${html(app.environment)}</td></tr><tr><th>Status</th><td>${html(app.status)}</td></tr>
<tr><th>Scopes</th><td>${html(app.scopes.join(' '))}</td></tr>
<tr><th>Redirect URIs</th><td>${app.redirect_uris.map((uri) => `<code>${html(uri)}</code>`).join('<br>') || 'none'}</td></tr>
<tr><th>Webhook URL</th><td>${app.webhook_url ? `<code>${html(app.webhook_url)}</code>` : 'none'}</td></tr>
<tr><th>Webhook signing secret</th><td><code class="secret">${html(app.webhook_signing_secret)}</code></td></tr>
</tbody></table>
<h2>Client secrets</h2>
<p>Rotate: add a new secret, move your app to it, then revoke the old one. Both work until then (at most two at a time).</p>
<table><thead><tr><th>Secret ID</th><th>Created</th><th>Status</th><th></th></tr></thead><tbody>${secrets}</tbody></table>
${active ? action(`${base}/secrets`, csrf, 'Rotate secret') : ''}
<h2>Webhooks</h2>
${
  active
    ? `<form method="post" action="${html(`${base}/webhook`)}">${hidden('csrf', csrf)}
${field('webhook_url', 'Webhook URL', 'url', app.webhook_url ?? '')}
<small>An https endpoint for consent.granted and consent.revoked; leave empty to remove it.</small><br>
<button type="submit">Save webhook URL</button></form>`
    : ''
}
${active && app.webhook_url ? action(`${base}/webhooks/test`, csrf, 'Send test webhook') : '<p>Set a webhook URL to receive consent events.</p>'}
<h3>Failed deliveries</h3>
${failed ? `<table><thead><tr><th>Delivery</th><th>Event</th><th>Attempts</th><th>Last answer</th><th>Created</th><th></th></tr></thead><tbody>${failed}</tbody></table>` : '<p>No failed deliveries.</p>'}
<h2>Danger zone</h2>
${active ? action(`${base}/disable`, csrf, 'Disable app') : '<p>This app is disabled: its tokens stop working and it cannot get new ones.</p>'}`,
  );
}

export function playersPage(
  frame: Frame,
  csrf: string,
  players: PlayerView[],
  values: { username?: string; display_name?: string } = {},
) {
  const rows = players
    .map(
      (player) =>
        `<tr><td>${html(player.username)}</td><td>${player.display_name === null ? '<small>none chosen</small>' : html(player.display_name)}</td><td>${html(player.status)}</td></tr>`,
    )
    .join('');
  return layout(
    frame,
    `<h1>Sandbox players</h1>
<p>Synthetic players for signing in on the player client while you test the consent flow. They are never real players.</p>
${players.length ? `<table><thead><tr><th>Username</th><th>Display name</th><th>Status</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No sandbox players yet.</p>'}
<h2>Create a sandbox player</h2>
<form method="post" action="/players">${hidden('csrf', csrf)}
${field('username', 'Username', 'text', values.username, 'required autocomplete="off"')}
${field('password', 'Password', 'password', '', 'required minlength="8" autocomplete="new-password"')}
${field('display_name', 'Display name', 'text', values.display_name, 'maxlength="64"')}
<small>Optional: the name GET /me answers; leave empty for none.</small><br>
<button type="submit">Create player</button></form>`,
  );
}

export function messagePage(frame: Frame, message: string, link = '<a href="/">Back to the console</a>'): string {
  return layout(frame, `<h1>${html(frame.title)}</h1><p role="alert">${html(message)}</p><p>${link}</p>`);
}
