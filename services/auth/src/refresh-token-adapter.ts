// Refresh tokens, kept per family: a grant's refresh-token family is one record (its current token)
// however often it rotates. A token's id names its family and its place in it
// (<grant id>.<rotation>.<random>), so a rotated token presented again is still recognised as an
// earlier token of a live family, answered as consumed, and the provider revokes the family, without
// the store keeping any rotated token. Before, every rotation left its token (about 0.6 KB) and a
// consumed marker for 30 days (measured: docs/oauth.md, Storage).
//
// The store never keeps a token itself (stored-credentials.ts): the record names its current token
// as <grant id>.<rotation>.<SHA-256 of the token>, and so does a consumed marker's key. The grant
// and the rotation are no secret and stay readable: they are what recognises an earlier token. With
// CREDENTIALS_AT_REST=clear they are written as the previous release writes them instead: the record
// and the marker name the token itself, and the payload keeps its jti. Both are read either way.
//
// A rotation is one atomic write: the provider consumes the presented token, then saves the next;
// the consume only notes the presented token (for this request), and the save notes the swap of the
// family's record from the presented token to the next, made once the provider has answered 200 and
// only if the record still names the presented one, claiming its consumed marker in the same step.
// A swap that fails is never left applied (the store takes it back), so a 503 leaves the presented
// token usable for the client's retry. Of concurrent rotations of one token exactly one
// swaps; the others find the record moved on and are answered as a replay, as a lost claim was.
// A record of the previous release names its token in the clear; it is swapped from that name, so
// that release's processes, which swap from it too, and this one exclude each other during a
// rolling release, and it is written in this process's format from then on.
import { randomBase64url } from '@devplat/keys';
import { type FiledEntry, hashTag, type KeyValueStore } from '@devplat/kv';
import { errors } from 'oidc-provider';
import {
  grantEntryKeys,
  type Payload,
  pendingUndoMayLand,
  type StoreFamilies,
  undoGraceMs,
  usedMark,
} from './adapter.ts';
import { type CredentialFormat, formatFound, noteFormat, storedName, storedPayload } from './stored-credentials.ts';
import { currentFacts, deferToAnswer, readWithAhead } from './token-request.ts';

/** The id of a family's refresh token: its grant, its rotation (0 for the first) and 192 random bits. */
export function refreshTokenId(grantId: string, rotation = 0): string {
  return `${grantId}.${rotation}.${randomBase64url(24)}`;
}

interface TokenId {
  id: string;
  grantId: string;
  rotation: number;
  /**
   * How the store names the token in each format: hashed, its grant and rotation, then its SHA-256
   * instead of its random part; in the clear, the token itself.
   */
  names: Record<CredentialFormat, string>;
}

function parse(id: string): TokenId | null {
  const match = /^([\w-]{1,64})\.(\d{1,9})\.[\w-]{32}$/.exec(id);
  if (!match) return null;
  const [, grantId = '', rotation = ''] = match;
  const names = { hashed: storedName('hashed', id, `${grantId}.${rotation}.`), clear: storedName('clear', id) };
  return { id, grantId, rotation: Number(rotation), names };
}

/** The rotation a record's token has (a stored name, or a token in the clear). */
const rotationOf = (recordId: string) => Number(/^[\w-]{1,64}\.(\d{1,9})\./.exec(recordId)?.[1] ?? 0);

// The grant id is the hash tag of the family's record and of its tokens' consumed markers: one slot.
const familyKey = (grantId: string) => `oidc:RefreshToken:${hashTag(grantId)}`;
// A consumed marker only has to outlive the requests that loaded the token before it rotated:
// afterwards the family's record itself says the token is an earlier one. It is named in the format
// of the process that claims it, and read in both.
const consumedKey = ({ grantId, names }: TokenId, format: CredentialFormat) =>
  `oidc:RefreshToken:${hashTag(grantId)}${names[format].slice(grantId.length)}:consumed`;
const consumedSeconds = 10 * 60;

interface FamilyRecord {
  id: string;
  payload: Payload;
}

// What a record begins with: JSON.stringify writes the id first, and an id needs no escaping.
const namesToken = (recordId: string) => `{"id":"${recordId}",`;

/** `writes`: the format records and markers are written in (CREDENTIALS_AT_REST); both are read. */
export function refreshTokenAdapter(
  store: KeyValueStore,
  families: StoreFamilies,
  writes: CredentialFormat = 'hashed',
) {
  const recordOf = (token: TokenId, payload: Payload) =>
    JSON.stringify({
      id: token.names[writes],
      payload: storedPayload(writes, payload, token.id),
    } satisfies FamilyRecord);

  /** The name the family's record has for the presented token: in the clear if the request found it so. */
  const recordIdOf = async (token: TokenId) => {
    let format = formatFound(token.id);
    if (!format) {
      const [record] = await store.getMany([familyKey(token.grantId)]);
      format = record?.startsWith(namesToken(token.id)) ? 'clear' : 'hashed';
    }
    return token.names[format];
  };

  /** The family moves from the presented token to the next, or the request is a replay. */
  const rotate = async (
    presented: TokenId,
    next: TokenId,
    payload: Payload,
    expiresIn: number,
    extendedGrant?: FiledEntry,
  ) => {
    const now = String(Math.floor(Date.now() / 1000));
    const swapped = await store.swap(
      familyKey(presented.grantId),
      {
        from: namesToken(await recordIdOf(presented)),
        to: recordOf(next, payload),
        ttlSeconds: expiresIn,
        ...(extendedGrant && { alongside: extendedGrant }),
      },
      { key: consumedKey(presented, writes), value: now, ttlSeconds: consumedSeconds },
      // Durable: a failover must not lose the rotation and let the presented token be used again.
      { durable: true },
    );
    if (swapped) return;
    // Another request rotated it between the provider's check and now: treat as a replay.
    await families.revoke(presented.grantId);
    throw new errors.InvalidGrant('refresh token already consumed');
  };

  return {
    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const token = parse(id);
      if (!token) throw new Error('a refresh token id names its grant');
      const facts = currentFacts();
      const presented = facts?.presentedRefreshToken ? parse(facts.presentedRefreshToken) : null;
      if (facts && presented?.grantId === token.grantId && expiresIn) {
        delete facts.presentedRefreshToken;
        // The index already holds the family's key; the swap writes the grant this rotation
        // extends (rotateFamily, grants/refresh-token.ts) and keeps the index as long. It waits
        // for the provider's answer: a step of the request that fails after this save has then
        // rotated and extended nothing.
        const grant = facts.extendedGrant?.grantId === token.grantId ? facts.extendedGrant.write : undefined;
        if (deferToAnswer(() => rotate(presented, token, payload, expiresIn, grant))) return;
        return rotate(presented, token, payload, expiresIn, grant);
      }
      await families.save(token.grantId, familyKey(token.grantId), recordOf(token, payload), expiresIn);
    },

    async find(id: string): Promise<Payload | undefined> {
      const token = parse(id);
      if (!token) return undefined;
      const waitUntil = Date.now() + undoGraceMs;
      for (;;) {
        // Its consumed marker may be named in either format, as the process that claimed it writes.
        // Its grant, which the provider loads next, comes in the same round trip.
        const [record, hashedMark, clearMark] = await readWithAhead(
          store,
          [familyKey(token.grantId), consumedKey(token, 'hashed'), consumedKey(token, 'clear')],
          grantEntryKeys(token.grantId),
        );
        if (!record) return undefined;
        const consumed = hashedMark ?? clearMark;
        const current = JSON.parse(record) as FamilyRecord;
        const isCurrent = current.id === token.names.hashed || current.id === id;
        // A later one never existed.
        if (!isCurrent && token.rotation >= rotationOf(current.id)) return undefined;
        // Used, or rotated by one step: perhaps by a request answered 503 whose write is taken back
        // once its process reaches Redis again, which after a failover may be a moment after this
        // retry. Given that moment (pendingUndoMayLand), the retry finds its token as it was.
        const justUsed = isCurrent ? Boolean(consumed) : token.rotation + 1 === rotationOf(current.id);
        if (justUsed && (await pendingUndoMayLand(waitUntil))) continue;
        if (isCurrent) {
          // The provider needs the token's jti, which is not stored (a record in the clear has it already).
          noteFormat(id, current.id === id ? 'clear' : 'hashed');
          const payload = { ...current.payload, jti: id };
          return consumed ? { ...payload, consumed: Number(consumed) } : payload;
        }
        // An earlier token of this family: it was rotated, so it is consumed, and presenting it is a replay.
        return { ...current.payload, jti: id, consumed: Math.floor(Date.now() / 1000) };
      }
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
      // Durable: a failover must not lose the mark and let the token be used again.
      const claimed = await store.putIfAbsent(consumedKey(token, writes), usedMark(), consumedSeconds, {
        durable: true,
      });
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
