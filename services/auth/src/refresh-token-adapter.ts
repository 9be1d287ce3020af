// Refresh tokens, kept per family: a grant's refresh-token family is one record (its current token)
// however often it rotates. A token's id names its family and its place in it
// (<grant id>.<rotation>.<random>), so a rotated token presented again is still recognised as an
// earlier token of a live family, answered as consumed, and the provider revokes the family, without
// the store keeping any rotated token. Before, every rotation left its token (about 0.6 KB) and a
// consumed marker for 30 days (measured: docs/oauth.md, Storage).
//
// A rotation is one atomic write: the provider consumes the presented token, then saves the next;
// the consume only notes the presented token (for this request), and the save swaps the family's
// record from the presented token to the next only if the record still names the presented one,
// claiming its consumed marker in the same step. Of concurrent rotations of one token exactly one
// swaps; the others find the record moved on and are answered as a replay, as a lost claim was.
// The marker is still claimed so that a process of the previous release, which claims it on
// consume, and this one exclude each other during a rolling release.
import { randomBytes } from 'node:crypto';
import { hashTag, type KeyValueStore } from '@devplat/kv';
import { errors } from 'oidc-provider';
import type { Payload, StoreFamilies } from './adapter.ts';
import { currentFacts } from './token-request.ts';

/** The id of a family's refresh token: its grant, its rotation (0 for the first) and 192 random bits. */
export function refreshTokenId(grantId: string, rotation = 0): string {
  return `${grantId}.${rotation}.${randomBytes(24).toString('base64url')}`;
}

function parse(id: string): { grantId: string; rotation: number } | null {
  const match = /^([\w-]{1,64})\.(\d{1,9})\.[\w-]{32}$/.exec(id);
  return match ? { grantId: match[1] as string, rotation: Number(match[2]) } : null;
}

// The grant id is the hash tag of the family's record and of its tokens' consumed markers: one slot.
const familyKey = (grantId: string) => `oidc:RefreshToken:${hashTag(grantId)}`;
// A consumed marker only has to outlive the requests that loaded the token before it rotated:
// afterwards the family's record itself says the token is an earlier one.
const consumedKey = (id: string, grantId: string) =>
  `oidc:RefreshToken:${hashTag(grantId)}${id.slice(grantId.length)}:consumed`;
const consumedSeconds = 10 * 60;

interface FamilyRecord {
  id: string;
  payload: Payload;
}

// What a record begins with: JSON.stringify writes the id first, and an id needs no escaping.
const recordOf = (id: string, payload: Payload) => JSON.stringify({ id, payload } satisfies FamilyRecord);
const namesToken = (id: string) => `{"id":"${id}",`;

export function refreshTokenAdapter(store: KeyValueStore, families: StoreFamilies) {
  /** The family moves from the presented token to the next, or the request is a replay. */
  const rotate = async (presented: string, grantId: string, next: string, payload: Payload, expiresIn: number) => {
    const now = String(Math.floor(Date.now() / 1000));
    const swapped = await store.swap(
      familyKey(grantId),
      { from: namesToken(presented), to: recordOf(next, payload), ttlSeconds: expiresIn },
      { key: consumedKey(presented, grantId), value: now, ttlSeconds: consumedSeconds },
      // Durable: a failover must not lose the rotation and let the presented token be used again.
      { durable: true },
    );
    if (swapped) return;
    // Another request rotated it between the provider's check and now: treat as a replay.
    await families.revoke(grantId);
    throw new errors.InvalidGrant('refresh token already consumed');
  };

  return {
    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const { grantId } = parse(id) ?? {};
      if (!grantId) throw new Error('a refresh token id names its grant');
      const facts = currentFacts();
      const presented = facts?.presentedRefreshToken;
      if (facts && presented && parse(presented)?.grantId === grantId && expiresIn) {
        delete facts.presentedRefreshToken;
        // The index already holds the family's key, kept as long by the grant's save in this
        // rotation (rotateFamily, grants/refresh-token.ts).
        return rotate(presented, grantId, id, payload, expiresIn);
      }
      await families.save(grantId, familyKey(grantId), recordOf(id, payload), expiresIn);
    },

    async find(id: string): Promise<Payload | undefined> {
      const token = parse(id);
      if (!token) return undefined;
      const [record, consumed] = await store.getMany([familyKey(token.grantId), consumedKey(id, token.grantId)]);
      if (!record) return undefined;
      const current = JSON.parse(record) as FamilyRecord;
      if (current.id === id) return consumed ? { ...current.payload, consumed: Number(consumed) } : current.payload;
      // An earlier token of this family: it was rotated, so it is consumed, and presenting it is a
      // replay. A later one never existed.
      if (token.rotation >= (parse(current.id)?.rotation ?? 0)) return undefined;
      return { ...current.payload, jti: id, consumed: Math.floor(Date.now() / 1000) };
    },

    async consume(id: string): Promise<void> {
      const token = parse(id);
      if (!token) throw new errors.InvalidGrant('refresh token not found');
      // In a request the save of the next token consumes it (rotate); a token consumed and never
      // replaced (the request failed before) stays usable, as nothing was issued for it.
      const facts = currentFacts();
      if (facts) {
        facts.presentedRefreshToken = id;
        return;
      }
      const now = String(Math.floor(Date.now() / 1000));
      // Durable: a failover must not lose the mark and let the token be used again.
      const claimed = await store.putIfAbsent(consumedKey(id, token.grantId), now, consumedSeconds, { durable: true });
      if (claimed) return;
      // Another request consumed it between the provider's check and now: treat as a replay.
      await families.revoke(token.grantId);
      throw new errors.InvalidGrant('refresh token already consumed');
    },

    async destroy(id: string): Promise<void> {
      const token = parse(id);
      if (token) await families.revoke(token.grantId);
    },

    async revokeByGrantId(grantId: string): Promise<void> {
      await families.revoke(grantId);
    },

    findByUid: async () => undefined,
    findByUserCode: async () => undefined,
  };
}
