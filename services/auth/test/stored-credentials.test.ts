// Codes and refresh tokens are stored only under their hash, and the entries the previous release
// wrote in the clear still work once, then as a replay. Rotations inside a token request (the swap)
// are played end to end in test/contract/credentials-at-rest.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { type KeyValueStore, memoryStore } from '@devplat/kv';
import { storeAdapter, storeFamilies } from '../src/adapter.ts';
import { refreshTokenAdapter, refreshTokenId } from '../src/refresh-token-adapter.ts';

// What the adapters store: every key and value they write (reads name what they look for, store nothing).
const reads = new Set(['getMany', 'members', 'delete', 'readStream', 'ping', 'ready', 'close']);

function setup() {
  const written: string[] = [];
  const memory = memoryStore();
  const store = new Proxy(memory, {
    get(target, name: keyof KeyValueStore) {
      const method = target[name];
      if (typeof method !== 'function' || reads.has(name)) return method;
      return (...args: unknown[]) => {
        written.push(JSON.stringify(args));
        return (method as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const revoked: string[] = [];
  const families = storeFamilies(store, { grantRevoked: async (grantId) => void revoked.push(grantId) });
  const Adapter = storeAdapter(store, families);
  return {
    store,
    revoked,
    codes: new Adapter('AuthorizationCode'),
    refreshTokens: refreshTokenAdapter(store, families),
    /** Asserts that nothing written so far holds the credential, or its random part. */
    holdsNone(...credentials: string[]) {
      for (const credential of credentials) {
        const secret = credential.slice(credential.lastIndexOf('.') + 1).replace(/^sva_/, '');
        const found = written.find((entry) => entry.includes(credential) || entry.includes(secret));
        assert.equal(found, undefined, `${credential} was written`);
      }
    },
  };
}

const newCode = () => `sva_${randomBytes(32).toString('base64url')}`;
const codePayload = (code: string, grantId: string) => ({
  jti: code,
  kind: 'AuthorizationCode',
  grantId,
  exp: Math.floor(Date.now() / 1000) + 120,
});

describe('credentials at rest', () => {
  test('a code is written only under its hash, and comes back whole', async () => {
    const { codes, revoked, holdsNone } = setup();
    const code = newCode();
    await codes.upsert(code, codePayload(code, 'g1'), 120);
    assert.equal((await codes.find(code))?.jti, code);
    await codes.consume(code);
    const again = await codes.find(code);
    assert.equal(again?.jti, code);
    assert.ok(again?.consumed, 'a used code is recognised');
    assert.deepEqual(revoked, ['g1'], 'and presenting it again revokes its grant');
    await assert.rejects(codes.consume(code), { name: 'InvalidGrant' });
    holdsNone(code);
  });

  test('a refresh family is written without any of its tokens', async () => {
    const { refreshTokens, revoked, holdsNone } = setup();
    const tokens = [refreshTokenId('g2')];
    await refreshTokens.upsert(tokens[0] as string, { jti: tokens[0], grantId: 'g2' }, 60);
    for (let rotation = 1; rotation <= 3; rotation++) {
      await refreshTokens.consume(tokens.at(-1) as string);
      const next = refreshTokenId('g2', rotation);
      await refreshTokens.upsert(next, { jti: next, grantId: 'g2', rotations: rotation }, 60);
      tokens.push(next);
    }
    const current = tokens.at(-1) as string;
    assert.equal((await refreshTokens.find(current))?.jti, current);
    assert.equal((await refreshTokens.find(current))?.consumed, undefined);
    assert.ok((await refreshTokens.find(tokens[0] as string))?.consumed, 'an earlier token is a replay');
    assert.equal(await refreshTokens.find(refreshTokenId('g2', 4)), undefined, 'a later one is unknown');
    assert.deepEqual(revoked, []);
    holdsNone(...tokens);
  });
});

describe('entries of the previous release, kept in the clear', () => {
  // As the previous release wrote them: the code as its key's hash tag and as its payload's jti.
  const seedCode = async (store: KeyValueStore, code: string, grantId: string) =>
    store.putFiled(
      `oidc:AuthorizationCode:{${code}}`,
      JSON.stringify(codePayload(code, grantId)),
      600,
      `oidc:grant:{${grantId}}`,
    );

  test('a code redeems once, then is a replay that revokes its grant', async () => {
    const { store, codes, revoked } = setup();
    const code = newCode();
    await seedCode(store, code, 'g3');
    const found = await codes.find(code);
    assert.equal(found?.jti, code);
    assert.equal(found?.consumed, undefined);
    await codes.consume(code);
    assert.ok((await codes.find(code))?.consumed);
    assert.deepEqual(revoked, ['g3']);
    await assert.rejects(codes.consume(code), { name: 'InvalidGrant' });
  });

  test('a code already claimed by a process of the previous release is lost here', async () => {
    const { store, codes, revoked } = setup();
    const code = newCode();
    await seedCode(store, code, 'g4');
    assert.ok(await codes.find(code));
    // That release claims its clear-named marker.
    await store.putIfAbsent(`oidc:AuthorizationCode:{${code}}:consumed`, '1', 600);
    await assert.rejects(codes.consume(code), { name: 'InvalidGrant' });
    assert.ok(revoked.length > 0 && revoked.every((grantId) => grantId === 'g4'), 'and the grant is revoked');
  });

  test('a revoked code is gone in either format', async () => {
    const { store, codes, revoked } = setup();
    const code = newCode();
    await seedCode(store, code, 'g5');
    await codes.destroy(code);
    assert.deepEqual(revoked, ['g5']);
    assert.equal(await codes.find(code), undefined);
  });

  test("a family's record naming its token in the clear is found, and its earlier tokens are replays", async () => {
    const { store, refreshTokens, revoked } = setup();
    const current = refreshTokenId('g6', 2);
    await store.putFiled(
      'oidc:RefreshToken:{g6}',
      JSON.stringify({ id: current, payload: { jti: current, grantId: 'g6', rotations: 2 } }),
      60,
      'oidc:grant:{g6}',
    );
    const found = await refreshTokens.find(current);
    assert.equal(found?.jti, current);
    assert.equal(found?.consumed, undefined);
    assert.ok((await refreshTokens.find(refreshTokenId('g6', 1)))?.consumed, 'an earlier token is a replay');
    assert.equal(await refreshTokens.find(refreshTokenId('g6', 3)), undefined, 'a later one is unknown');
    await refreshTokens.consume(current);
    await assert.rejects(refreshTokens.consume(current), { name: 'InvalidGrant' });
    assert.deepEqual(revoked, ['g6']);
  });
});
