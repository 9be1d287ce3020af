// The api_keys table: every statement on developers' API keys is here, and only these write them.
import type { ApiKeyScope, Prisma } from '@devplat/db';
import type { Db } from '../db.ts';

export type ApiKeyRow = Prisma.ApiKeyModel;

export interface NewApiKeyRow {
  accountId: string;
  name: string;
  scope: ApiKeyScope;
  keyHash: string;
  hint: string;
  createdAt: Date;
  expiresAt: Date;
}

/** The account's keys that are neither revoked nor expired at `now`. */
export const activeKeyCount = (db: Db, accountId: string, now: Date): Promise<number> =>
  db.apiKey.count({ where: { accountId, revokedAt: null, expiresAt: { gt: now } } });

export const insertApiKey = (tx: Prisma.TransactionClient, data: NewApiKeyRow): Promise<ApiKeyRow> =>
  tx.apiKey.create({ data });

/** The account's keys that were live at `since` or after, newest first, at most `take`. */
export const keysOfAccountSince = (db: Db, accountId: string, since: Date, take: number): Promise<ApiKeyRow[]> =>
  db.apiKey.findMany({
    where: { accountId, OR: [{ revokedAt: null, expiresAt: { gt: since } }, { revokedAt: { gt: since } }] },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take,
  });

export const findKeyOfAccount = (db: Db, keyId: string, accountId: string): Promise<ApiKeyRow | null> =>
  db.apiKey.findFirst({ where: { id: keyId, accountId } });

export const markKeyRevoked = (tx: Prisma.TransactionClient, keyId: string, at: Date): Promise<ApiKeyRow> =>
  tx.apiKey.update({ where: { id: keyId }, data: { revokedAt: at } });

/** The key whose hash this is: one indexed lookup (key_hash is unique). */
export const findKeyByHash = (db: Db, keyHash: string): Promise<ApiKeyRow | null> =>
  db.apiKey.findUnique({ where: { keyHash } });

/** Sets the key's last use to `at` unless it is later already: never moved back. */
export const noteLastUse = (db: Db, keyId: string, at: Date): Promise<{ count: number }> =>
  db.apiKey.updateMany({
    where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
    data: { lastUsedAt: at },
  });
