// A developer's API keys for the console API (scripts, CI, the devplat CLI): made, listed and
// revoked from a signed-in session only, each shown once and kept as its SHA-256 (@devplat/keys,
// as the operator tokens are, under a prefix of its own, so neither opens the other's door). A key
// acts for its account within its scope until it expires or is revoked. Every call reads the key's
// row again (one indexed lookup by the hash: the key is 256 random bits), so a revocation, an
// expiry or a suspended account stops it on the very next call, in every process. When a key was
// last used is written at most about once a minute a key, off the request's path. Creating and
// revoking are audited against the account (its history). This is the only module that touches
// the api_keys table.
import {
  type ApiKeyScope,
  type ApiKeyView,
  apiKeyLimits,
  apiKeyPrefix,
  apiKeyScopes,
  type CreatedApiKeyView,
} from '@devplat/contract';
import { type Account, isUuid, type Prisma, type PrismaClient } from '@devplat/db';
import { findAccount, lockAccount } from '@devplat/domain/accounts';
import { type Actor, recordAudit } from '@devplat/domain/audit';
import { keyShape, matchesHash, newKey, secretHash } from '@devplat/keys';
import { knownFields, refuse, requiredText } from './rules.ts';

export type ApiKeyRow = Prisma.ApiKeyModel;

const dayMs = 24 * 60 * 60 * 1000;
/** The shortest gap between two writes of a key's last use. */
export const lastUsedIntervalMs = 60_000;

export function apiKeyStatus(row: ApiKeyRow, now = Date.now()): ApiKeyView['status'] {
  if (row.revokedAt) return 'revoked';
  return row.expiresAt.getTime() <= now ? 'expired' : 'active';
}

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

/** A key just made: the key itself, which is never seen again, and its row. */
export interface NewApiKey {
  key: string;
  apiKey: ApiKeyRow;
}

/** Why a key was not made although the request was well formed: the account holds the most it may. */
export interface KeyLimitReached {
  limitReached: string;
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

/** What creating a key takes: a name, a scope, and a lifetime in days (apiKeyLimits). */
function keyRequest(input: unknown): { name: string; scope: ApiKeyScope; days: number } {
  const body = knownFields(input, ['name', 'scope', 'expires_in_days']);
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

const whenText = (at: Date) => at.toISOString();
const makeAnother = 'make a new one (devplat keys create, or API keys in the console) and use it instead.';

export function developerApiKeys(prisma: PrismaClient) {
  // The keys whose last use is being written now: one write a key at a time.
  const writing = new Set<string>();
  const active = (accountId: string, now: Date): Prisma.ApiKeyWhereInput => ({
    accountId,
    revokedAt: null,
    expiresAt: { gt: now },
  });

  return {
    /** A new key for the account (the actor), audited as api_key.create; the key is in this answer only. */
    async create(actor: Actor, input: unknown): Promise<NewApiKey | KeyLimitReached> {
      const { name, scope, days } = keyRequest(input);
      const now = new Date();
      const key = newKey(apiKeyPrefix);
      return prisma.$transaction(async (tx) => {
        // Concurrent creates of one account take turns from here, so each counts the keys the
        // others made: counted unlocked, all of them could see room for one more.
        await lockAccount(tx, actor.accountId);
        const held = await tx.apiKey.count({ where: active(actor.accountId, now) });
        if (held >= apiKeyLimits.maxActive) {
          return {
            limitReached:
              `An account holds at most ${apiKeyLimits.maxActive} API keys that are neither revoked nor expired: ` +
              'revoke one it no longer uses first.',
          };
        }
        const apiKey = await tx.apiKey.create({
          data: {
            accountId: actor.accountId,
            name,
            scope,
            keyHash: secretHash(key),
            hint: key.slice(-4),
            createdAt: now,
            expiresAt: new Date(now.getTime() + days * dayMs),
          },
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
    },

    /**
     * The account's keys, newest first: every key neither revoked nor expired, and those that ended
     * in the last 30 days (older ones remain in the account's history).
     */
    async list(accountId: string): Promise<ApiKeyRow[]> {
      const now = new Date();
      const since = new Date(now.getTime() - 30 * dayMs);
      return prisma.apiKey.findMany({
        where: {
          accountId,
          OR: [{ revokedAt: null, expiresAt: { gt: since } }, { revokedAt: { gt: since } }],
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: apiKeyLimits.maxActive + 100,
      });
    },

    /**
     * Revokes one of the account's keys, audited as api_key.revoke: it answers 401 from its next
     * call. A key revoked already is answered as it is; null when the account has no such key.
     */
    async revoke(actor: Actor, keyId: string): Promise<ApiKeyRow | null> {
      if (!isUuid(keyId)) return null;
      return prisma.$transaction(async (tx) => {
        const found = await tx.apiKey.findFirst({ where: { id: keyId, accountId: actor.accountId } });
        if (!found || found.revokedAt) return found;
        const revoked = await tx.apiKey.update({ where: { id: found.id }, data: { revokedAt: new Date() } });
        await recordAudit(
          tx,
          actor,
          'api_key.revoke',
          { type: 'account', id: actor.accountId },
          { key_id: found.id, name: found.name, scope: found.scope },
        );
        return revoked;
      });
    },

    /**
     * What a bearer key opens: its key and account, or why not (unknown, revoked, expired, or an
     * account that may not use the console). Read afresh on every call: nothing is cached.
     */
    async authenticate(key: string): Promise<ApiKeyInUse | KeyRefused> {
      if (!keyShape(key, apiKeyPrefix).wellFormed) {
        return { refused: `This is not an API key: an API key is ${apiKeyPrefix} followed by 43 letters and digits.` };
      }
      const row = await prisma.apiKey.findUnique({ where: { keyHash: secretHash(key) } });
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
    },

    /**
     * Notes that the key opened a call: written when its last use is older than a minute (or
     * unknown), without waiting, never moving it back. A failed write is only told to `failed`;
     * the next call tries again.
     */
    noteUse(key: ApiKeyInUse, failed: (error: unknown) => void): void {
      const now = new Date();
      const stale = key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() >= lastUsedIntervalMs;
      if (!stale || writing.has(key.id)) return;
      writing.add(key.id);
      prisma.apiKey
        .updateMany({
          where: { id: key.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: now } }] },
          data: { lastUsedAt: now },
        })
        .catch(failed)
        .finally(() => writing.delete(key.id));
    },
  };
}
export type DeveloperApiKeys = ReturnType<typeof developerApiKeys>;
