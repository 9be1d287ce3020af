// The player client's pages: plain HTML, labelled controls, no scripts.
import type { ConnectedApp } from './connected-apps.ts';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const html = (value: string) => value.replace(/[&<>"']/g, (c) => escapes[c] as string);

const style = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input{font-size:1rem;padding:.4rem;width:100%}
button{font-size:1rem;padding:.5rem 1.2rem;margin:1rem .5rem 0 0}.id{font-family:monospace;word-break:break-all}
.error{color:#a00}h2{font-size:1.15rem;margin:0}.app{border:1px solid #ccc;border-radius:.4rem;padding:1rem;margin:1rem 0}
.notice{background:#eef6ee;border-left:.3rem solid #2a7a2a;padding:.5rem 1rem}`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${html(title)}</title><style>${style}</style></head><body><main>${body}</main></body></html>`;
}

export function signInPage(input: { csrf: string; returnTo: string; error?: string; username?: string }): string {
  return layout(
    'Sign in',
    `<h1>Sign in to the game platform</h1>
${input.error ? `<p class="error" role="alert">${html(input.error)}</p>` : ''}
<form method="post" action="/signin">
<input type="hidden" name="csrf" value="${html(input.csrf)}">
<input type="hidden" name="return_to" value="${html(input.returnTo)}">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required value="${html(input.username ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export interface ConsentView {
  appName: string;
  scopes: { scope: string; description: string }[];
  pairwiseSubject: string;
  returnHost: string;
  playerName: string;
  requestId: string;
  csrf: string;
}

export function consentPage(view: ConsentView): string {
  return layout(
    `Allow ${view.appName}?`,
    `<h1>${html(view.appName)} wants to connect to your account</h1>
<p>Signed in as ${html(view.playerName)}.</p>
<p>If you allow it, ${html(view.appName)} will be able to:</p>
<ul>${view.scopes.map((s) => `<li>${html(s.description)} <small>(${html(s.scope)})</small></li>`).join('')}</ul>
<p>The ID ${html(view.appName)} will see for you: <span class="id">${html(view.pairwiseSubject)}</span>.
It is different for every app and is not your player ID.</p>
<p>Afterwards you return to <strong>${html(view.returnHost)}</strong>. Nothing is shared until you allow it.</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${html(view.requestId)}">
<input type="hidden" name="csrf" value="${html(view.csrf)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Not now</button>
</form>`,
  );
}

export function refusalPage(title: string, message: string): string {
  return layout(title, `<h1>${html(title)}</h1><p role="alert">${html(message)}</p><p>Nothing was shared.</p>`);
}

export interface ConnectedAppsView {
  playerName: string;
  apps: ConnectedApp[];
  /** A one-time confirmation of what the player just did. */
  notice: string | null;
  csrf: string;
}

const allowedOn = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

function connectedApp(app: ConnectedApp, index: number, csrf: string): string {
  return `<section class="app" aria-labelledby="app-${index}">
<h2 id="app-${index}">${html(app.name)}</h2>
<p>Allowed on <time datetime="${app.firstAllowedAt.toISOString()}">${html(allowedOn.format(app.firstAllowedAt))} UTC</time>.${
    app.returnHosts.length > 0 ? ` It returns you to <strong>${html(app.returnHosts.join(', '))}</strong>.` : ''
  }</p>
<p>${html(app.name)} can:</p>
<ul>${app.scopes.map((s) => `<li>${html(s.description)} <small>(${html(s.scope)})</small></li>`).join('')}</ul>
<form method="post" action="/account/connected-apps/remove">
<input type="hidden" name="csrf" value="${html(csrf)}">
<input type="hidden" name="client_id" value="${html(app.clientId)}">
<button type="submit">Remove access</button>
</form>
</section>`;
}

export function connectedAppsPage(view: ConnectedAppsView): string {
  return layout(
    'Connected apps',
    `<h1>Connected apps</h1>
<p>Signed in as ${html(view.playerName)}.</p>
${view.notice ? `<p class="notice" role="status">${html(view.notice)}</p>` : ''}
${
  view.apps.length === 0
    ? '<p>You have not allowed any app yet.</p>'
    : `<p>These apps can use your account as shown. Remove access and an app can no longer use it; allow it again from the app if you change your mind.</p>
${view.apps.map((app, index) => connectedApp(app, index, view.csrf)).join('\n')}`
}
<form method="post" action="/signout">
<input type="hidden" name="csrf" value="${html(view.csrf)}">
<button type="submit">Sign out</button>
</form>`,
  );
}

/** A refused form on a page of the player's account. */
export function formRefusedPage(message: string): string {
  return layout(
    'That did not work',
    `<h1>That did not work</h1><p role="alert">${html(message)}</p><p><a href="/account/connected-apps">Back to connected apps</a></p>`,
  );
}
