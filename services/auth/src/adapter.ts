// oidc-provider's storage (codes, refresh tokens, grants, ...) in the key-value store. Every
// entry of a grant is indexed under it so the whole family can be revoked at once, and consume
// is atomic: of concurrent redemptions of one code or refresh token exactly one succeeds; each
// loser revokes the grant and gets invalid_grant, as a replay would.
//
// Nothing of a grant leaves the store before its consent has ended in PostgreSQL (grantRevoked,
// which commits the receipt and its consent.revoked event). A failure between the two leaves the
// grant in place, so the client's retry finds its token again and finishes the job; the other order
// would leave an active consent whose tokens the retry can no longer find.
import { limits } from '@devplat/contract';
import { hashTag, type KeyValueStore } from '@devplat/kv';
import { errors } from 'oidc-provider';

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
const grantKey = (grantId: string) => `oidc:grant:${hashTag(grantId)}`;

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

export function storeAdapter(store: KeyValueStore, families: StoreFamilies) {
  return class StoreAdapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const key = entryKey(this.model, id);
      // A code is redeemable for 120 s (its exp), but kept as long as its grant can live, so that
      // presenting it again later is still recognised as a replay and revokes the grant.
      const keepFor = this.model === 'AuthorizationCode' ? codeMemorySeconds : expiresIn;
      const grantId = this.model === 'Grant' ? id : payload.grantId;
      if (grantId) await families.save(grantId, key, JSON.stringify(payload), keepFor);
      else await store.put(key, JSON.stringify(payload), keepFor);
      if (payload.uid) await store.put(entryKey(`${this.model}:uid`, payload.uid), id, expiresIn);
      if (payload.userCode) await store.put(entryKey(`${this.model}:userCode`, payload.userCode), id, expiresIn);
    }

    async find(id: string): Promise<Payload | undefined> {
      if (!issuable(id)) return undefined;
      const key = entryKey(this.model, id);
      const [value, consumed] = await store.getMany([key, consumedKey(key)]);
      if (!value) return undefined;
      const payload = JSON.parse(value) as Payload;
      if (!consumed) return payload;
      // A used code presented again revokes its grant whatever else is wrong with the request
      // (the provider would first refuse an expired code without revoking anything).
      if (this.model === 'AuthorizationCode' && payload.grantId) await families.revoke(payload.grantId);
      return { ...payload, consumed: Number(consumed) };
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
      const key = entryKey(this.model, id);
      const now = Math.floor(Date.now() / 1000);
      // Durable: a failover must not lose the mark and let the code be redeemed again.
      if (await store.putIfAbsent(consumedKey(key), String(now), codeMemorySeconds, { durable: true })) return;
      // Another request consumed it between the provider's check and now: treat as a replay.
      const payload = await this.find(id);
      if (payload?.grantId) await families.revoke(payload.grantId);
      throw new errors.InvalidGrant(
        `${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already consumed`,
      );
    }

    async destroy(id: string): Promise<void> {
      const key = entryKey(this.model, id);
      if (this.model === 'Grant') {
        await families.revoke(id);
        await store.delete([key]);
        return;
      }
      // A destroyed token (a revoked one) ends its grant's consent first.
      const [value] = await store.getMany([key]);
      const grantId = value ? (JSON.parse(value) as Payload).grantId : undefined;
      if (grantId) await families.revoke(grantId);
      await store.delete([key]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await families.revoke(grantId);
    }
  };
}
