// What can be done with a developer's API keys: make one (shown once, kept as its SHA-256,
// @devplat/keys), list them, revoke one, and tell what a presented key opens. Making and revoking
// are audited against the account (its history). Every call reads the key's row again (one indexed
// lookup by the hash: the key is 256 random bits), so a revocation, an expiry or a suspended account
// stops it on the very next call, in every process.
import { type ApiKeyView, apiKeyLimits, apiKeyPrefix } from '@devplat/contract';
import { type Account, type ApiKeyScope, isUuid, type PrismaClient } from '@devplat/db';
import { keyShape, matchesHash, newKey, secretHash } from '@devplat/keys';
import { findAccount, lockAccount } from '../accounts/store.ts';
import { type Actor, recordAudit } from '../audit/store.ts';
import { refuse } from '../refusal.ts';
import { type ApiKeyRequest, checkedApiKey } from './rules.ts';
import {
  type ApiKeyRow,
  activeKeyCount,
  findKeyByHash,
  findKeyOfAccount,
  insertApiKey,
  keysOfAccountSince,
  markKeyRevoked,
  noteLastUse,
} from './store.ts';

const dayMs = 24 * 60 * 60 * 1000;
/** The shortest gap between two writes of a key's last use. */
export const lastUsedIntervalMs = 60_000;

export function apiKeyStatus(row: ApiKeyRow, now = Date.now()): ApiKeyView['status'] {
  if (row.revokedAt) return 'revoked';
  return row.expiresAt.getTime() <= now ? 'expired' : 'active';
}

/** A key just made: the key itself, which is never seen again, and its row. */
export interface NewApiKey {
  key: string;
  apiKey: ApiKeyRow;
}

/** A key that opened a call: what it may do, and the account it acts for. */
export interface ApiKeyInUse {
  id: string;
  name: string;
  scope: ApiKeyScope;
  lastUsedAt: Date | null;
  account: Account;
}

/** A key that opens nothing, and why, in words for whoever holds it (never the key). */
export interface KeyRefused {
  refused: string;
}

/**
 * A new key for the account (the actor), under the key's rules (rules.ts), audited as
 * api_key.create; the key is in this answer only. API_KEY_LIMIT when the account holds the most it may.
 */
export async function createApiKey(prisma: PrismaClient, actor: Actor, request: ApiKeyRequest): Promise<NewApiKey> {
  const { name, scope, days } = checkedApiKey(request);
  const now = new Date();
  const key = newKey(apiKeyPrefix);
  return prisma.$transaction(async (tx) => {
    // Concurrent creates of one account take turns from here, so each counts the keys the others
    // made: counted unlocked, all of them could see room for one more.
    await lockAccount(tx, actor.accountId);
    if ((await activeKeyCount(tx, actor.accountId, now)) >= apiKeyLimits.maxActive) {
      refuse(
        'API_KEY_LIMIT',
        `An account holds at most ${apiKeyLimits.maxActive} API keys that are neither revoked nor expired: ` +
          'revoke one it no longer uses first.',
      );
    }
    const apiKey = await insertApiKey(tx, {
      accountId: actor.accountId,
      name,
      scope,
      keyHash: secretHash(key),
      hint: key.slice(-4),
      createdAt: now,
      expiresAt: new Date(now.getTime() + days * dayMs),
    });
    await recordAudit(
      tx,
      actor,
      'api_key.create',
      { type: 'account', id: actor.accountId },
      { key_id: apiKey.id, name, scope, expires_at: apiKey.expiresAt.toISOString() },
    );
    return { key, apiKey };
  });
}

/**
 * The account's keys, newest first: every key neither revoked nor expired, and those that ended in
 * the last 30 days (older ones remain in the account's history).
 */
export const apiKeysOfAccount = (prisma: PrismaClient, accountId: string): Promise<ApiKeyRow[]> =>
  keysOfAccountSince(prisma, accountId, new Date(Date.now() - 30 * dayMs), apiKeyLimits.maxActive + 100);

/**
 * Revokes one of the account's keys, audited as api_key.revoke: it answers 401 from its next call.
 * A key revoked already is answered as it is; null when the account has no such key.
 */
export async function revokeApiKey(prisma: PrismaClient, actor: Actor, keyId: string): Promise<ApiKeyRow | null> {
  if (!isUuid(keyId)) return null;
  return prisma.$transaction(async (tx) => {
    const found = await findKeyOfAccount(tx, keyId, actor.accountId);
    if (!found || found.revokedAt) return found;
    const revoked = await markKeyRevoked(tx, found.id, new Date());
    await recordAudit(
      tx,
      actor,
      'api_key.revoke',
      { type: 'account', id: actor.accountId },
      { key_id: found.id, name: found.name, scope: found.scope },
    );
    return revoked;
  });
}

const whenText = (at: Date) => at.toISOString();
const makeAnother = 'make a new one (devplat keys create, or API keys in the console) and use it instead.';

/**
 * What a bearer key opens: its key and account, or why not (unknown, revoked, expired, or an
 * account that may not use the console). Read afresh on every call: nothing is cached.
 */
export async function authenticateApiKey(prisma: PrismaClient, key: string): Promise<ApiKeyInUse | KeyRefused> {
  if (!keyShape(key, apiKeyPrefix).wellFormed) {
    return { refused: `This is not an API key: an API key is ${apiKeyPrefix} followed by 43 letters and digits.` };
  }
  const row = await findKeyByHash(prisma, secretHash(key));
  if (!row || !matchesHash(key, row.keyHash)) {
    return { refused: 'This API key is not valid: it is unknown, or mistyped.' };
  }
  if (row.revokedAt) return { refused: `This API key was revoked at ${whenText(row.revokedAt)}: ${makeAnother}` };
  if (row.expiresAt.getTime() <= Date.now()) {
    return { refused: `This API key expired at ${whenText(row.expiresAt)}: ${makeAnother}` };
  }
  const account = await findAccount(prisma, row.accountId);
  if (account?.kind !== 'full' || account.status !== 'active') {
    return { refused: 'The account of this API key is suspended: none of its keys opens anything.' };
  }
  return { id: row.id, name: row.name, scope: row.scope, lastUsedAt: row.lastUsedAt, account };
}

/**
 * Notes that a key opened a call: written when its last use is older than a minute (or unknown),
 * without waiting, never moving it back, one write a key at a time. A failed write is only told to
 * `failed`; the next call tries again.
 */
export function apiKeyUse(prisma: PrismaClient): (key: ApiKeyInUse, failed: (error: unknown) => void) => void {
  const writing = new Set<string>();
  return (key, failed) => {
    const now = new Date();
    const stale = key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() >= lastUsedIntervalMs;
    if (!stale || writing.has(key.id)) return;
    writing.add(key.id);
    noteLastUse(prisma, key.id, now)
      .catch(failed)
      .finally(() => writing.delete(key.id));
  };
}
