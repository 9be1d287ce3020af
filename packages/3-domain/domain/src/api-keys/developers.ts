// A developer's API keys, as the console serves them: the request to make one, read from the JSON
// body and checked by the key's rules (rules.ts), which refuse it in the developer's words.
import type { PrismaClient } from '@devplat/db';
import type { Actor } from '../audit/store.ts';
import type { JsonBody } from '../input.ts';
import { apiKeysOfAccount, apiKeyUse, authenticateApiKey, createApiKey, revokeApiKey } from './operations.ts';
import type { ApiKeyRequest } from './rules.ts';

/** What creating a key takes, as the JSON gives it; the key's rules check every member. */
const keyRequest = (body: JsonBody): ApiKeyRequest => ({
  name: body.name as string,
  scope: body.scope as string,
  days: body.expires_in_days as number | undefined,
});

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
