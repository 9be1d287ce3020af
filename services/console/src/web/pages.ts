// The console's pages, in the shared layout: plain HTML with labelled controls that works without
// scripts; the console's own script (assets.ts) adds copy buttons and the live request log.

import {
  errorMessage,
  type Html,
  type HtmlValue,
  hiddenField,
  html,
  noticeMessage,
  scrollRegion,
  siteLayout,
} from '@devplat/http';
import { consoleScript } from './assets.ts';

const consoleLayout = siteLayout({ name: 'Developer console', width: '52rem', script: consoleScript });

export interface Frame {
  title: string;
  signedIn?: { displayName: string; csrf: string };
  notice?: string;
  error?: string;
}

function navigation(signedIn: Frame['signedIn']): Html {
  if (!signedIn) return html`<nav aria-label="Console"><strong>Developer console</strong></nav>`;
  return html`<nav aria-label="Console"><strong>Developer console</strong><a href="/apps">Apps</a><a href="/players">Sandbox players</a><a href="/api-keys">API keys</a><a href="/docs/">Docs</a>
<form method="post" action="/signout">${hiddenField('csrf', signedIn.csrf)}
<a href="/account" title="Your account">${signedIn.displayName}</a> <button type="submit">Sign out</button></form></nav>`;
}

/** A console page: the navigation, the notice or error, then the body. */
export function layout(frame: Frame, body: Html): Html {
  return consoleLayout({
    title: frame.title,
    header: navigation(frame.signedIn),
    main: html`
${noticeMessage(frame.notice)}
${errorMessage(frame.error)}
${body}`,
  });
}

export const field = (id: string, label: string, type: string, value: string | undefined, extra?: Html) =>
  html`<label for="${id}">${label}</label><input id="${id}" name="${id}" type="${type}" value="${value ?? ''}" ${extra}>`;
/** A one-button form: every state change is a POST with the session's CSRF token. */
export const action = (path: string, csrf: string, label: string, extra?: Html) =>
  html`<form class="inline" method="post" action="${path}">${hiddenField('csrf', csrf)}<button type="submit" ${extra}>${label}</button></form>`;

export function signInPage(frame: Frame, csrf: string, email = ''): Html {
  return layout(
    frame,
    html`<h1>Sign in to the developer console</h1>
<form method="post" action="/signin">${hiddenField('csrf', csrf)}
${field('email', 'Email', 'email', email, html`autocomplete="username" required`)}
${field('password', 'Password', 'password', '', html`autocomplete="current-password" required`)}
<button type="submit">Sign in</button></form>
<p>No account yet? <a href="/register">Register a developer account</a>.</p>`,
  );
}

export function registerPage(frame: Frame, csrf: string, values: { email?: string; display_name?: string } = {}) {
  return layout(
    frame,
    html`<h1>Register a developer account</h1>
<form method="post" action="/register">${hiddenField('csrf', csrf)}
${field('email', 'Email', 'email', values.email, html`autocomplete="email" required`)}
${field('display_name', 'Display name', 'text', values.display_name, html`required maxlength="64"`)}
${field('password', 'Password', 'password', '', html`autocomplete="new-password" required minlength="12"`)}
<small>At least 12 characters.</small><br>
<button type="submit">Create account</button></form>
<p>Already registered? <a href="/signin">Sign in</a>.</p>`,
  );
}

/** A table with its header row, scrolling inside its region (named `label`) on a narrow screen; `empty` when there are no rows. */
export const table = (label: string, headings: string[], rows: HtmlValue[], empty: HtmlValue) =>
  rows.length
    ? scrollRegion(
        label,
        html`<table><thead><tr>${headings.map((heading) => html`<th>${heading}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`,
      )
    : empty;

/** An app's status as its pages say it. */

export function messagePage(
  frame: Frame,
  message: string,
  next: HtmlValue = html`<a href="/">Back to the console</a>`,
) {
  return layout(frame, html`<h1>${frame.title}</h1><p role="alert">${message}</p><p>${next}</p>`);
}
