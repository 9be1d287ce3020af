// A refresh-token family is one record however often it rotates, and every earlier token of it is
// still recognised as consumed (a replay), while an id the family never issued is unknown.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoryStore } from '@devplat/kv';
import { storeFamilies, undoGraceMs } from '../src/adapter.ts';
import { refreshTokenAdapter, refreshTokenId } from '../src/refresh-token-adapter.ts';
import { claimRecordingStore } from './claim-recording-store.ts';

function setup() {
  const store = memoryStore();
  const revoked: string[] = [];
  const families = storeFamilies(store, { grantRevoked: async (grantId) => void revoked.push(grantId) });
  return { store, revoked, tokens: refreshTokenAdapter(store, families) };
}

async function rotate(tokens: ReturnType<typeof setup>['tokens'], grantId: string, from: string, rotation: number) {
  await tokens.consume(from);
  const next = refreshTokenId(grantId, rotation);
  await tokens.upsert(next, { jti: next, grantId, scope: 'city.public.read' }, 60);
  return next;
}

describe('refresh tokens, one record per family', () => {
  test('a hundred rotations keep one family record; an earlier token is consumed, a later one unknown', async () => {
    const { store, tokens, revoked } = setup();
    const first = refreshTokenId('g1');
    await tokens.upsert(first, { jti: first, grantId: 'g1', scope: 'city.public.read' }, 60);
    let current = first;
    for (let rotation = 1; rotation <= 100; rotation++) current = await rotate(tokens, 'g1', current, rotation);

    assert.deepEqual(
      await store.members('oidc:grant:{g1}'),
      ['oidc:RefreshToken:{g1}'],
      'one record filed under the grant',
    );
    assert.equal((await tokens.find(current))?.jti, current);
    assert.equal((await tokens.find(current))?.consumed, undefined);
    const replayed = await tokens.find(first);
    assert.equal(replayed?.jti, first, 'answered as the presented token');
    assert.ok(replayed?.consumed, 'and as consumed: the provider revokes the family');
    assert.equal(await tokens.find(refreshTokenId('g1', 101)), undefined, 'a rotation that never happened');
    assert.equal(await tokens.find(refreshTokenId('g2', 0)), undefined, 'another family');
    assert.equal(await tokens.find('not-a-token'), undefined);
    assert.deepEqual(revoked, []);
  });

  test('of two requests that loaded the current token, the one that consumes second loses and revokes', async () => {
    const { tokens, revoked } = setup();
    const token = refreshTokenId('g3');
    await tokens.upsert(token, { jti: token, grantId: 'g3' }, 60);
    await tokens.consume(token);
    await assert.rejects(tokens.consume(token), { name: 'InvalidGrant' });
    assert.deepEqual(revoked, ['g3']);
  });

  test('revoking the family ends its consent first, then deletes its record', async () => {
    const { tokens, revoked, store } = setup();
    const token = refreshTokenId('g4');
    await tokens.upsert(token, { jti: token, grantId: 'g4' }, 60);
    await tokens.destroy(token);
    assert.deepEqual(revoked, ['g4']);
    assert.equal(await tokens.find(token), undefined);
    assert.deepEqual(await store.members('oidc:grant:{g4}'), []);
  });

  test("a rotation taken back a moment after the retry arrived (a 503'd refresh): the retry finds its token current", async () => {
    const { store, claims } = claimRecordingStore();
    const revoked: string[] = [];
    const tokens = refreshTokenAdapter(
      store,
      storeFamilies(store, { grantRevoked: async (grantId) => void revoked.push(grantId) }),
    );
    const first = refreshTokenId('g7');
    await tokens.upsert(first, { jti: first, grantId: 'g7', scope: 'city.public.read' }, 60);
    const [before] = await store.getMany(['oidc:RefreshToken:{g7}']);
    await rotate(tokens, 'g7', first, 1); // applied, but its answer was lost: its process takes it back
    // As the swap's undo does: the record as it was, the presented token's mark gone.
    setTimeout(async () => {
      await store.put('oidc:RefreshToken:{g7}', before as string, 60);
      await store.delete(claims);
    }, 300);
    const found = await tokens.find(first);
    assert.equal(found?.jti, first);
    assert.equal(found?.consumed, undefined, 'current again, not a replay');
    assert.deepEqual(revoked, []);
  });

  test('a token rotated one step and not taken back is a replay, answered once the grace is over', async () => {
    const { tokens } = setup();
    const first = refreshTokenId('g8');
    await tokens.upsert(first, { jti: first, grantId: 'g8' }, 60);
    const second = await rotate(tokens, 'g8', first, 1);
    await rotate(tokens, 'g8', second, 2);
    let started = Date.now();
    assert.ok((await tokens.find(first))?.consumed, 'two steps back: a replay at once');
    assert.ok(Date.now() - started < undoGraceMs / 2);
    started = Date.now();
    assert.ok((await tokens.find(second))?.consumed, 'one step back: a replay after the grace');
    assert.ok(Date.now() - started >= undoGraceMs - 100);
  });
});
