// The console web UI's API keys page (/api-keys): create a key (name, scope, lifetime), shown once
// on the page that answers the form and never again; the account's keys with when each was made,
// expires and was last used; Revoke per key. The same domain as the API's routes (which take a
// session only, as this page does).
import { type ApiKeyView, apiKeyLimits } from '@devplat/contract';
import { refuse } from '@devplat/domain/refusal';
import { type Html, type HtmlValue, hiddenField, html, sendPage } from '@devplat/http';
import type { Context } from 'koa';
import { apiKeyView } from '../views.ts';
import { actor, form, frame, refused, type WebRoutes, who } from './context.ts';
import { copyButton } from './copy.ts';
import { action, type Frame, field, layout, table } from './pages.ts';
import { timeElement } from './time.ts';

/** The create form's fields as typed. */
export interface ApiKeyFormValues {
  name?: string;
  scope?: string;
  expires_in_days?: string;
}

function newKeyBox(key: string | undefined): HtmlValue {
  return (
    key &&
    html`<div class="secret-box" role="region" aria-label="New API key"><p><strong>Copy this API key now: it is shown only once.</strong></p><p class="secret" id="api-key" data-testid="api-key">${key}</p>
${copyButton('api-key', 'API key')}
<p>Use it as <code>Authorization: Bearer &lt;key&gt;</code> on the console API, or give it to devplat: <code>DEVPLAT_API_KEY=&lt;key&gt; devplat apps list</code>.</p></div>`
  );
}

export function apiKeysPage(
  view: Frame,
  csrf: string,
  keys: ApiKeyView[],
  { newKey, values = {} }: { newKey?: string; values?: ApiKeyFormValues } = {},
): Html {
  const rows = keys.map(
    (key) =>
      html`<tr><td>${key.name}</td><td><code>…${key.hint}</code></td><td>${key.scope}</td><td>${key.status}</td>
<td>${timeElement(key.created_at)}</td><td>${timeElement(key.expires_at)}</td><td>${key.last_used_at ? timeElement(key.last_used_at) : 'never'}</td>
<td>${key.status === 'revoked' ? key.revoked_at && timeElement(key.revoked_at) : action(`/api-keys/${key.id}/revoke`, csrf, 'Revoke', html`aria-label="Revoke API key ${key.name}"`)}</td></tr>`,
  );
  const scope = values.scope === 'write' ? 'write' : 'read';
  const scopeChoice = (value: 'read' | 'write', says: string) =>
    html`<div><input type="radio" id="scope-${value}" name="scope" value="${value}" ${scope === value && html`checked`}>
<label class="inline" for="scope-${value}">${value}</label> <small>${says}</small></div>`;
  return layout(
    view,
    html`<h1>API keys</h1>
${newKeyBox(newKey)}
<p>An API key lets a script, a CI job or <code>devplat</code> use the console API as you, without your password:
<code>DEVPLAT_API_KEY</code> or <code>--api-key-stdin</code> for devplat, <code>Authorization: Bearer</code> for the API.
A key cannot create or revoke keys or change your account: that takes this signed-in page. A revoked or expired key,
or any key while your account is suspended, answers <code>401</code> from its next call.</p>
${table('Your API keys', ['Name', 'Key', 'Scope', 'Status', 'Created', 'Expires', 'Last used', ''], rows, html`<p>You have no API keys.</p>`)}
<p><small>Last used is noted at most about once a minute. Keys revoked or expired more than 30 days ago are no longer
listed; your <a href="/account">account's history</a> keeps every key made and revoked.</small></p>
<h2>Create an API key</h2>
<form method="post" action="/api-keys">${hiddenField('csrf', csrf)}
${field('name', 'Name', 'text', values.name, html`required maxlength="64" autocomplete="off"`)}
<small>What it is for, e.g. "CI deploy".</small>
<fieldset><legend>Scope</legend>
${scopeChoice('read', 'GET only: list and read apps, deliveries, history, players, the event stream (never a webhook signing secret)')}
${scopeChoice('write', 'Also create, change and delete apps, secrets and players, send test webhooks and triggers')}
</fieldset>
${field('expires_in_days', 'Expires in (days)', 'number', values.expires_in_days ?? String(apiKeyLimits.defaultDays), html`required min="1" max="${String(apiKeyLimits.maxDays)}"`)}
<small>1 to ${apiKeyLimits.maxDays} days. At most ${apiKeyLimits.maxActive} keys may be active at once.</small><br>
<button type="submit">Create API key</button></form>`,
  );
}

export function apiKeyPages({ signedInRoute, domain: { apiKeys }, done, takeNotice }: WebRoutes): void {
  const keysOf = async (ctx: Context) => (await apiKeys.list(who(ctx).account.id)).map((row) => apiKeyView(row));
  signedInRoute('/api-keys', {
    GET: async (ctx) => {
      const view = frame(who(ctx), 'API keys', { notice: await takeNotice(ctx) });
      sendPage(ctx, 200, apiKeysPage(view, who(ctx).session.csrf, await keysOf(ctx)));
    },
    POST: async (ctx) => {
      const { fields } = form(ctx);
      const values: ApiKeyFormValues = {
        name: fields.name,
        scope: fields.scope,
        expires_in_days: fields.expires_in_days,
      };
      const days = values.expires_in_days?.trim();
      const input = {
        name: values.name,
        scope: values.scope,
        // A number when it reads as one; anything else is refused by the domain with the rule.
        expires_in_days: days && /^[0-9]{1,6}$/.test(days) ? Number(days) : days,
      };
      let made: Awaited<ReturnType<typeof apiKeys.create>>;
      try {
        made = await apiKeys.create(actor(ctx), input);
      } catch (error) {
        const refusal = refused(ctx, error);
        const view = frame(who(ctx), 'API keys', { error: refusal.reason });
        sendPage(ctx, refusal.status, apiKeysPage(view, who(ctx).session.csrf, await keysOf(ctx), { values }));
        return;
      }
      const notice = `Created the API key "${made.apiKey.name}" (${made.apiKey.scope}).`;
      const view = frame(who(ctx), 'API keys', { notice });
      sendPage(ctx, 201, apiKeysPage(view, who(ctx).session.csrf, await keysOf(ctx), { newKey: made.key }));
    },
  });
  signedInRoute('/api-keys/:keyId/revoke', {
    POST: async (ctx) => {
      const revoked = await apiKeys.revoke(actor(ctx), ctx.params.keyId as string);
      if (!revoked) refuse('API_KEY_NOT_FOUND', 'This API key does not exist or is not yours.');
      await done(ctx, '/api-keys', `Revoked the API key "${revoked.name}": it answers 401 from its next call.`);
    },
  });
}
