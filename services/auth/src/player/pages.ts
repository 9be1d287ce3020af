// The player client's pages, in the shared layout: plain HTML, labelled controls, no scripts.
import { errorMessage, type Html, hiddenField, html, noticeMessage, siteLayout } from '@devplat/http';
import type { Arrived } from './authorize.ts';
import type { ConnectedApp } from './connected-apps.ts';

const layout = siteLayout({ width: '32rem' });

export function signInPage(input: { csrf: string; returnTo: string; error?: string; username?: string }): Html {
  return layout({
    title: 'Sign in',
    main: html`<h1>Sign in to the game platform</h1>
${errorMessage(input.error)}
<form method="post" action="/signin">
${hiddenField('csrf', input.csrf)}
${hiddenField('return_to', input.returnTo)}
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required value="${input.username ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  });
}

const scopeList = (scopes: { scope: string; description: string }[]) =>
  html`<ul>${scopes.map((s) => html`<li>${s.description} <small>(${s.scope})</small></li>`)}</ul>`;

export interface ConsentView {
  appName: string;
  scopes: { scope: string; description: string }[];
  pairwiseSubject: string;
  returnHost: string;
  playerName: string;
  requestId: string;
  csrf: string;
  /** Where "Not you?" returns after signing out: this same authorization request. */
  returnTo: string;
}

export function consentPage(view: ConsentView): Html {
  return layout({
    title: `Allow ${view.appName}?`,
    main: html`<h1>${view.appName} wants to connect to your account</h1>
<p>Signed in as ${view.playerName}.</p>
<p>If you allow it, ${view.appName} will be able to:</p>
${scopeList(view.scopes)}
<p>The ID ${view.appName} will see for you: <span class="id">${view.pairwiseSubject}</span>.
It is different for every app and is not your player ID.</p>
<p>Afterwards you return to <strong>${view.returnHost}</strong>. Nothing is shared until you allow it.</p>
<form method="post" action="/oauth/authorize">
${hiddenField('request', view.requestId)}
${hiddenField('csrf', view.csrf)}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Not now</button>
</form>
<form method="post" action="/signout" class="not-you">
${hiddenField('csrf', view.csrf)}
${hiddenField('return_to', view.returnTo)}
<p>Not ${view.playerName}? <button type="submit" class="link">Sign out</button> and sign in as yourself.</p>
</form>`,
  });
}

/** Long enough for any real value, short enough that a page cannot be filled with one. */
const shown = (value: string) => (value.length > 300 ? `${value.slice(0, 300)}…` : value);

function arrivedDetails(arrived: Arrived | undefined): Html | false {
  if (!arrived) return false;
  const registered = arrived.registered;
  return html`<h2>For the app's developer</h2>
<dl class="arrived">
${arrived.clientId !== undefined && html`<dt>client_id received</dt><dd><code>${shown(arrived.clientId)}</code></dd>`}
${arrived.redirectUri !== undefined && html`<dt>redirect_uri received</dt><dd><code>${shown(arrived.redirectUri)}</code></dd>`}
${
  registered !== undefined &&
  html`<dt>Redirect URIs registered for this app</dt>${
    registered.length === 0 ? html`<dd>none</dd>` : registered.map((uri) => html`<dd><code>${uri}</code></dd>`)
  }`
}
</dl>`;
}

export function refusalPage(title: string, message: string, arrived?: Arrived): Html {
  return layout({
    title,
    main: html`<h1>${title}</h1><p role="alert">${message}</p><p>Nothing was shared.</p>${arrivedDetails(arrived)}`,
  });
}

export interface ConnectedAppsView {
  playerName: string;
  apps: ConnectedApp[];
  /** A one-time confirmation of what the player just did. */
  notice: string | undefined;
  csrf: string;
}

const allowedOn = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

function connectedApp(app: ConnectedApp, index: number, csrf: string): Html {
  const returnHosts =
    app.returnHosts.length > 0 && html` It returns you to <strong>${app.returnHosts.join(', ')}</strong>.`;
  return html`<section class="app" aria-labelledby="app-${index}">
<h2 id="app-${index}">${app.name}</h2>
<p>Allowed on <time datetime="${app.firstAllowedAt.toISOString()}">${allowedOn.format(app.firstAllowedAt)} UTC</time>.${returnHosts}</p>
<p>${app.name} can:</p>
${scopeList(app.scopes)}
<form method="post" action="/account/connected-apps/remove">
${hiddenField('csrf', csrf)}
${hiddenField('client_id', app.clientId)}
<button type="submit">Remove access</button>
</form>
</section>`;
}

export function connectedAppsPage(view: ConnectedAppsView): Html {
  const apps =
    view.apps.length === 0
      ? html`<p>You have not allowed any app yet.</p>`
      : html`<p>These apps can use your account as shown. Remove access and an app can no longer use it; allow it again from the app if you change your mind.</p>
${view.apps.map((app, index) => [index > 0 && '\n', connectedApp(app, index, view.csrf)])}`;
  return layout({
    title: 'Connected apps',
    main: html`<h1>Connected apps</h1>
<p>Signed in as ${view.playerName}.</p>
${noticeMessage(view.notice)}
${apps}
<form method="post" action="/signout">
${hiddenField('csrf', view.csrf)}
<button type="submit">Sign out</button>
</form>`,
  });
}

/** A refused form on a page of the player's account. */
export function formRefusedPage(message: string): Html {
  return layout({
    title: 'That did not work',
    main: html`<h1>That did not work</h1><p role="alert">${message}</p><p><a href="/account/connected-apps">Back to connected apps</a></p>`,
  });
}
