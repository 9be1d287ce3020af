// An API key's rules, in the one place every creation reaches (createApiKey): its name (1 to 64
// characters of text), its scope (one of apiKeyScopes) and its lifetime (a whole number of days
// from 1 to apiKeyLimits.maxDays; apiKeyLimits.defaultDays when not given). How many keys an account
// may hold is counted as one is made (createApiKey). A key is never edited, only revoked. Each
// refusal is the sentence every door shows.
import { apiKeyLimits, apiKeyScopes } from '@devplat/contract';
import type { ApiKeyScope } from '@devplat/db';
import { refuseInput, requiredText } from '../input.ts';

const maxNameLength = 64;

/** What creating a key takes: a name, a scope, and a lifetime in days (or none: the default). */
export interface ApiKeyRequest {
  name: string;
  scope: string;
  days?: number;
}

/** A key as the rules keep it: the name trimmed, a scope of the catalogue, the lifetime in days. */
export interface CheckedApiKey {
  name: string;
  scope: ApiKeyScope;
  days: number;
}

/** The request, checked by the key's rules; refuses the first member that breaks one. */
export function checkedApiKey(request: ApiKeyRequest): CheckedApiKey {
  const name = requiredText(request.name, 'name', maxNameLength);
  const scope = apiKeyScopes.find((each) => each === request.scope);
  if (!scope) refuseInput(`scope is required: ${apiKeyScopes.join(' or ')}.`);
  const days = request.days ?? apiKeyLimits.defaultDays;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > apiKeyLimits.maxDays) {
    refuseInput(
      `expires_in_days must be a whole number of days from 1 to ${apiKeyLimits.maxDays} ` +
        `(${apiKeyLimits.maxDays} is the longest a key may live; ${apiKeyLimits.defaultDays} when not given).`,
    );
  }
  return { name, scope, days };
}
