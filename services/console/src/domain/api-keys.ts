// The console's door to a developer's API keys (@devplat/domain/api-keys): the request to make
// one, read and refused here in the console's words, and the views both doors answer with.
import { type ApiKeyView, apiKeyLimits, apiKeyScopes, type CreatedApiKeyView } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import {
  type ApiKeyRequest,
  type ApiKeyRow,
  apiKeyStatus,
  apiKeysOfAccount,
  apiKeyUse,
  authenticateApiKey,
  createApiKey,
  type NewApiKey,
  revokeApiKey,
} from '@devplat/domain/api-keys';
import type { Actor } from '@devplat/domain/audit';
import { type JsonBody, refuse, requiredText } from './rules.ts';

export type { ApiKeyInUse } from '@devplat/domain/api-keys';

export const apiKeyView = (row: ApiKeyRow, now = Date.now()): ApiKeyView => ({
  id: row.id,
  name: row.name,
  scope: row.scope,
  hint: row.hint,
  status: apiKeyStatus(row, now),
  created_at: row.createdAt.toISOString(),
  expires_at: row.expiresAt.toISOString(),
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
  revoked_at: row.revokedAt?.toISOString() ?? null,
});

export const createdApiKeyView = ({ key, apiKey }: NewApiKey): CreatedApiKeyView => ({
  api_key: apiKeyView(apiKey),
  key,
});

/** What creating a key takes: a name, a scope, and a lifetime in days (apiKeyLimits). */
function keyRequest(body: JsonBody): ApiKeyRequest {
  const name = requiredText(body.name, 'name', 64);
  const scope = apiKeyScopes.find((each) => each === body.scope);
  if (!scope) refuse(`scope is required: ${apiKeyScopes.join(' or ')}.`);
  const days = body.expires_in_days ?? apiKeyLimits.defaultDays;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > apiKeyLimits.maxDays) {
    refuse(
      `expires_in_days must be a whole number of days from 1 to ${apiKeyLimits.maxDays} ` +
        `(${apiKeyLimits.maxDays} is the longest a key may live; ${apiKeyLimits.defaultDays} when not given).`,
    );
  }
  return { name, scope, days };
}

export function developerApiKeys(prisma: PrismaClient) {
  return {
    create: (actor: Actor, body: JsonBody) => createApiKey(prisma, actor, keyRequest(body)),
    list: (accountId: string) => apiKeysOfAccount(prisma, accountId),
    revoke: (actor: Actor, keyId: string) => revokeApiKey(prisma, actor, keyId),
    authenticate: (key: string) => authenticateApiKey(prisma, key),
    noteUse: apiKeyUse(prisma),
  };
}
