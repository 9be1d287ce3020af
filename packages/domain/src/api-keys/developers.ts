// A developer's API keys, as the console serves them: the request to make one, read by the room's
// rules (a name, a scope, a lifetime in days) and refused in the developer's words.
import { apiKeyLimits, apiKeyScopes } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import type { Actor } from '../audit/store.ts';
import { type JsonBody, refuseInput, requiredText } from '../input.ts';
import {
  type ApiKeyRequest,
  apiKeysOfAccount,
  apiKeyUse,
  authenticateApiKey,
  createApiKey,
  revokeApiKey,
} from './operations.ts';

/** What creating a key takes: a name, a scope, and a lifetime in days (apiKeyLimits). */
function keyRequest(body: JsonBody): ApiKeyRequest {
  const name = requiredText(body.name, 'name', 64);
  const scope = apiKeyScopes.find((each) => each === body.scope);
  if (!scope) refuseInput(`scope is required: ${apiKeyScopes.join(' or ')}.`);
  const days = body.expires_in_days ?? apiKeyLimits.defaultDays;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > apiKeyLimits.maxDays) {
    refuseInput(
      `expires_in_days must be a whole number of days from 1 to ${apiKeyLimits.maxDays} ` +
        `(${apiKeyLimits.maxDays} is the longest a key may live; ${apiKeyLimits.defaultDays} when not given).`,
    );
  }
  return { name, scope, days };
}

/** The console's operations on a developer's API keys, over this database. */
export function developerApiKeys(prisma: PrismaClient) {
  return {
    create: (actor: Actor, body: JsonBody) => createApiKey(prisma, actor, keyRequest(body)),
    list: (accountId: string) => apiKeysOfAccount(prisma, accountId),
    revoke: (actor: Actor, keyId: string) => revokeApiKey(prisma, actor, keyId),
    authenticate: (key: string) => authenticateApiKey(prisma, key),
    noteUse: apiKeyUse(prisma),
  };
}
