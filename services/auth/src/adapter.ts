// oidc-provider's storage (codes, refresh tokens, grants, ...) in the key-value store. Every
// entry of a grant is indexed under it so the whole family can be revoked at once, and consume
// is atomic: of concurrent redemptions of one code or refresh token exactly one succeeds; each
// loser revokes the grant and gets invalid_grant, as a replay would.
//
// Nothing of a grant leaves the store before its consent has ended in PostgreSQL (grantRevoked,
// which commits the receipt and its consent.revoked event). A failure between the two leaves the
// grant in place, so the client's retry finds its token again and finishes the job; the other order
// would leave an active consent whose tokens the retry can no longer find.
import { randomInt } from 'node:crypto';
import { limits } from '@devplat/contract';
import { hashTag, type KeyValueStore } from '@devplat/kv';
import { errors } from 'oidc-provider';
import { type CredentialFormat, formatFound, noteFormat, storedName, storedPayload } from './stored-credentials.ts';
import { currentFacts, deferToAnswer, readOnce } from './token-request.ts';

export type Payload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  userCode?: string;
  consumed?: number;
};

export interface AdapterHooks {
  /**
   * Ends the consent behind a grant that is being destroyed: by the provider (replay found on
   * redemption, revocation) or by a lost consume race. Awaited before anything of the grant is
   * deleted; idempotent, since the provider destroys a grant through several calls at once.
   */
  grantRevoked(grantId: string): Promise<void>;
}

// Each entry's id is its key's hash tag: an entry and its consumed marker share a Cluster slot.
const entryKey = (model: string, id: string) => `oidc:${model}:${hashTag(id)}`;
// An id with braces was never issued (the provider's are base64url): it must not name another's tag.
const issuable = (id: string) => !/[{}]/.test(id);
// How long a code, and the consumed marker of a code or refresh token, is kept: as long as a grant
// can live (its ttl is the refresh token's) and a day more, so the marker outlasts everything it
// guards and a replay is recognised for as long as there is a grant left to revoke.
const codeMemorySeconds = limits.refreshTokenSeconds + 24 * 60 * 60;
const consumedKey = (key: string) => `${key}:consumed`;

/**
 * A consumed marker's value: when it was used (seconds, as the provider reads it) and a random part
 * that makes the mark this call's own, so that taking back a failed claim never takes another's.
 */
export const usedMark = () => `${Math.floor(Date.now() / 1000)}.${randomInt(1e9)}`;

/**
 * How long a code or refresh token found used is looked at again before it counts as a replay. A
 * redemption or rotation answered 503 because Redis failed under it is taken back by its process
 * (packages/2-infrastructure/kv/src/single-use.ts) as soon as that process reaches Redis again; after a failover the
 * client's retry, through another connection or process, can arrive first. Only a code or token
 * used just now (its mark, or a rotation by one step) waits: a replay is refused as before, later.
 */
export const undoGraceMs = 2_000;

/** Sleeps a moment and says true while `waitUntil` has not passed: look again. */
export async function pendingUndoMayLand(waitUntil: number): Promise<boolean> {
  if (Date.now() >= waitUntil) return false;
  await new Promise((resolve) => setTimeout(resolve, 100));
  return true;
}
const grantKey = (grantId: string) => `oidc:grant:${hashTag(grantId)}`;

/** Where a grant's entry is and its consumed marker, as the Grant adapter reads them. */
export const grantEntryKeys = (grantId: string) => {
  const key = entryKey('Grant', grantId);
  return [key, consumedKey(key)];
};

/** The entries of each grant, filed under it, so that revoking the grant reaches all of them. */
export interface StoreFamilies {
  /** Stores an entry filed under its grant (the index first: nothing is stored unfiled). */
  save(grantId: string, key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Ends the grant's consent (PostgreSQL first), then deletes everything filed under the grant. */
  revoke(grantId: string): Promise<void>;
}

// Consumed markers are not filed under their grant and never deleted, only expire: a request that
// loaded a code or refresh token before its grant was revoked must still find it consumed, or it
// could redeem it once more.
//
// The provider revokes a grant through every model's adapter at once (a replay, a revocation): those
// concurrent calls share one revocation, so one consent update runs, and a failure answers all of
// them; none is left to commit after the client was told 503.
export function storeFamilies(store: KeyValueStore, hooks: AdapterHooks): StoreFamilies {
  const revoking = new Map<string, Promise<void>>();
  const revoke = async (grantId: string) => {
    await hooks.grantRevoked(grantId);
    const keys = await store.members(grantKey(grantId));
    await store.delete([...keys, grantKey(grantId)]);
  };
  return {
    save: (grantId, key, value, ttlSeconds) => store.putFiled(key, value, ttlSeconds, grantKey(grantId)),
    revoke(grantId) {
      let pending = revoking.get(grantId);
      if (!pending) {
        pending = revoke(grantId).finally(() => revoking.delete(grantId));
        revoking.set(grantId, pending);
      }
      return pending;
    },
  };
}

// An authorization code is a bearer credential: it is stored in the format this process writes
// (stored-credentials.ts: under its hash by default), and its name is also its hash tag, so the code
// and its consumed marker still share a Cluster slot. Both formats are read. A grant's id is no
// credential (every user access token carries it, as gid) and stays readable.
const credentialModels = new Set(['AuthorizationCode']);

interface Found {
  payload: Payload;
  /** Its consumed marker's value, if it has one. */
  consumed: string | null;
}

/** `writes`: the format codes are written in (CREDENTIALS_AT_REST); both are read. */
export function storeAdapter(store: KeyValueStore, families: StoreFamilies, writes: CredentialFormat = 'hashed') {
  return class StoreAdapter {
    readonly model: string;
    readonly #credential: boolean;
    constructor(model: string) {
      this.model = model;
      this.#credential = credentialModels.has(model);
    }

    /** Where an entry is in a format: a code under its stored name, anything else under its id. */
    #keyIn(format: CredentialFormat, id: string): string {
      return entryKey(this.model, this.#credential ? storedName(format, id) : id);
    }

    /** Where this process writes an entry. */
    #key(id: string): string {
      return this.#keyIn(writes, id);
    }

    /** Where a code is in each format (an id with braces never was in the clear); null for other models. */
    #keys(id: string): { hashed: string; clear: string | null } | null {
      if (!this.#credential) return null;
      return { hashed: this.#keyIn('hashed', id), clear: issuable(id) ? this.#keyIn('clear', id) : null };
    }

    async #load(id: string): Promise<Found | undefined> {
      const keys = this.#keys(id);
      if (!keys) {
        const key = this.#key(id);
        const [value, consumed] = await readOnce(store, [key, consumedKey(key)]);
        return value ? { payload: JSON.parse(value) as Payload, consumed: consumed ?? null } : undefined;
      }
      const { hashed, clear } = keys;
      const [value, consumed, clearValue, clearConsumed] = await store.getMany(
        clear ? [hashed, consumedKey(hashed), clear, consumedKey(clear)] : [hashed, consumedKey(hashed)],
      );
      if (value) {
        noteFormat(id, 'hashed');
        // The provider needs its jti, which is not stored.
        return { payload: { ...(JSON.parse(value) as Payload), jti: id }, consumed: consumed ?? null };
      }
      if (!clear || !clearValue) return undefined;
      noteFormat(id, 'clear');
      return { payload: JSON.parse(clearValue) as Payload, consumed: clearConsumed ?? null };
    }

    /**
     * The key whose consumed marker guards the entry: the one the request found it under, else the
     * clear one while it or its marker is there (a revoked grant took the entry, not the marker).
     */
    async #guardingKey(id: string): Promise<string> {
      const keys = this.#keys(id);
      if (!keys?.clear) return keys?.hashed ?? this.#key(id);
      const { hashed, clear } = keys;
      const format =
        formatFound(id) ?? ((await store.getMany([clear, consumedKey(clear)])).some(Boolean) ? 'clear' : 'hashed');
      return format === 'clear' ? clear : hashed;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const key = this.#key(id);
      const value = JSON.stringify(this.#credential ? storedPayload(writes, payload, id) : payload);
      // A code is redeemable for 120 s (its exp), but kept as long as its grant can live, so that
      // presenting it again later is still recognised as a replay and revokes the grant.
      const keepFor = this.model === 'AuthorizationCode' ? codeMemorySeconds : expiresIn;
      const grantId = this.model === 'Grant' ? id : payload.grantId;
      const extended = this.model === 'Grant' ? currentFacts()?.extendedGrant : undefined;
      if (extended?.grantId === id && !extended.write) {
        // A refresh's extension of its grant: written by the rotation's swap (refresh-token-adapter.ts).
        extended.write = { key, value, setKey: grantKey(id) };
        return;
      }
      if (grantId) await families.save(grantId, key, value, keepFor);
      else await store.put(key, value, keepFor);
      if (payload.uid) await store.put(entryKey(`${this.model}:uid`, payload.uid), id, expiresIn);
      if (payload.userCode) await store.put(entryKey(`${this.model}:userCode`, payload.userCode), id, expiresIn);
    }

    async find(id: string): Promise<Payload | undefined> {
      if (!issuable(id)) return undefined;
      const waitUntil = Date.now() + undoGraceMs;
      let found = await this.#load(id);
      // A mark a request answered 503 made is taken back by its process (undoGraceMs says why).
      while (found?.consumed && (await pendingUndoMayLand(waitUntil))) found = await this.#load(id);
      if (!found) return undefined;
      if (!found.consumed) return found.payload;
      // A used code presented again revokes its grant whatever else is wrong with the request
      // (the provider would first refuse an expired code without revoking anything).
      if (this.model === 'AuthorizationCode' && found.payload.grantId) await families.revoke(found.payload.grantId);
      return { ...found.payload, consumed: Number(found.consumed) };
    }

    async findByUid(uid: string) {
      if (!issuable(uid)) return undefined;
      const [id] = await store.getMany([entryKey(`${this.model}:uid`, uid)]);
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(userCode: string) {
      if (!issuable(userCode)) return undefined;
      const [id] = await store.getMany([entryKey(`${this.model}:userCode`, userCode)]);
      return id ? this.find(id) : undefined;
    }

    async consume(id: string): Promise<void> {
      // A code kept in the clear (by the previous release, or written so here) is claimed under its
      // clear name, as that release's processes claim it during a rolling release: of the two,
      // exactly one wins.
      const key = await this.#guardingKey(id);
      const claim = async () => {
        // Durable: a failover must not lose the mark and let the code be redeemed again. A claim
        // that fails is taken back by the store, so the client's retry may redeem the code.
        if (await store.putIfAbsent(consumedKey(key), usedMark(), codeMemorySeconds, { durable: true })) return;
        // Another request consumed it between the provider's check and now: treat as a replay.
        const payload = await this.find(id);
        if (payload?.grantId) await families.revoke(payload.grantId);
        throw new errors.InvalidGrant(
          `${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already consumed`,
        );
      };
      // In a token request the claim waits for the provider's answer (token-request.ts): a step
      // that fails after this one (the consent check, the refresh token's save) has used nothing.
      if (!deferToAnswer(claim)) await claim();
    }

    async destroy(id: string): Promise<void> {
      const key = this.#key(id);
      if (this.model === 'Grant') {
        await families.revoke(id);
        await store.delete([key]);
        return;
      }
      // A destroyed token (a revoked one) ends its grant's consent first. A code goes in either format.
      const found = this.#keys(id);
      const keys = found ? [found.hashed, ...(found.clear ? [found.clear] : [])] : [key];
      const value = (await store.getMany(keys)).find(Boolean);
      const grantId = value ? (JSON.parse(value) as Payload).grantId : undefined;
      if (grantId) await families.revoke(grantId);
      await store.delete(keys);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await families.revoke(grantId);
    }
  };
}
