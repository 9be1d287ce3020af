// An app's rules, in the one place every door's create and edit reaches (createApp, editApp): its
// name (1 to 100 characters of text), its redirect URIs (contract rule 8, at most five, never on a
// platform host), its scopes (the catalogue's, at least one, none twice) and its webhook URL
// (@devplat/webhooks' URL rules). A member an edit leaves out is not checked. Each refusal is the
// sentence every door shows.
import type { WebhookSettings } from '@devplat/config';
import { isScope, limits, scopeNames } from '@devplat/contract';
import { isLocalWebhookUrl, webhookUrlProblem } from '@devplat/webhooks';
import { requiredText } from '../input.ts';
import { type RefusalCode, refuse } from '../refusal.ts';
import { redirectUrisProblem } from './redirect-uris.ts';

export const maxAppNameLength = 100;

export interface AppRuleSettings {
  /** The platform's cookie hosts (config `cookieHosts`), where no redirect URI may point. */
  reservedHosts?: readonly string[];
  /** The webhook URL rules of the process (config `webhooks`); the strictest when absent. */
  webhooks?: Pick<WebhookSettings, 'allowLoopbackHttp' | 'ownPorts'>;
}

export interface AppMembers {
  name?: string;
  redirectUris?: string[];
  scopes?: string[];
  webhookUrl?: string | null;
}

/** Rule 8 for redirect URIs (at most five, exact, never on a platform host), as a sentence. */
function checkRedirectUris(uris: string[], reservedHosts?: readonly string[]) {
  const problem = redirectUrisProblem(uris, reservedHosts);
  if (!problem) return;
  const code: RefusalCode = uris.length > limits.maxRedirectUris ? 'TOO_MANY_REDIRECT_URIS' : 'INVALID_REDIRECT_URI';
  refuse(code, `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
}

/** At least one scope of the catalogue, none twice. */
function checkScopes(scopes: string[]) {
  const known = scopeNames.join(', ');
  if (scopes.length === 0) refuse('INVALID_SCOPES', `scopes must name at least one of: ${known}.`);
  if (new Set(scopes).size !== scopes.length) refuse('INVALID_SCOPES', 'scopes must not repeat.');
  const unknownScope = scopes.find((scope) => !isScope(scope));
  if (unknownScope !== undefined) {
    refuse('UNKNOWN_SCOPE', `Unknown scope ${JSON.stringify(unknownScope)}. Scopes: ${known}.`);
  }
}

/** What to do instead, in the refusal of a URL on the developer's own machine. */
const listenHint = (url: string) =>
  ` (to receive events on your own machine, run: devplat listen <client_id> --forward-to ${url})`;

/** A URL a webhook may go to, or WEBHOOK_URL_REFUSED saying why. */
function checkWebhookUrl(url: string, settings: AppRuleSettings['webhooks'] = { allowLoopbackHttp: false }) {
  const problem = webhookUrlProblem(url, settings);
  if (!problem) return;
  const hint = isLocalWebhookUrl(url, settings) ? listenHint(url) : '';
  refuse('WEBHOOK_URL_REFUSED', `webhook_url ${problem}${hint}.`);
}

/** The members given, checked by the app's rules (the name as kept: trimmed); refuses the first that breaks one. */
export function checkedApp<T extends AppMembers>(members: T, settings: AppRuleSettings): T {
  const name = members.name === undefined ? undefined : requiredText(members.name, 'name', maxAppNameLength);
  if (members.redirectUris) checkRedirectUris(members.redirectUris, settings.reservedHosts);
  if (members.scopes) checkScopes(members.scopes);
  if (typeof members.webhookUrl === 'string') checkWebhookUrl(members.webhookUrl, settings.webhooks);
  return name === undefined ? members : { ...members, name };
}
