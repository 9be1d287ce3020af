// The storage adapter's replay rules, with the interleavings spelled out step by step (the
// end-to-end race tests hit them only by chance).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoryStore } from '@devplat/kv';
import { storeAdapter, storeFamilies, undoGraceMs } from '../src/adapter.ts';
import { claimRecordingStore } from './claim-recording-store.ts';

function setup() {
  const store = memoryStore();
  const revoked: string[] = [];
  const Adapter = storeAdapter(
    store,
    storeFamilies(store, { grantRevoked: async (grantId) => void revoked.push(grantId) }),
  );
  return { store, revoked, codes: new Adapter('AuthorizationCode'), grants: new Adapter('Grant') };
}

describe('storage adapter', () => {
  test("the provider's concurrent revocations of one grant share one consent update, and its failure", async () => {
    const store = memoryStore();
    let updates = 0;
    let fail = true;
    const families = storeFamilies(store, {
      grantRevoked: async () => {
        updates += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (fail) throw new Error('PostgreSQL failed');
      },
    });
    // What oidc-provider does on a replay: revokeByGrantId on every model at once.
    const results = await Promise.allSettled([families.revoke('g9'), families.revoke('g9'), families.revoke('g9')]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.equal(updates, 1, 'no second update is left running after the first failed');
    fail = false;
    await Promise.all([families.revoke('g9'), families.revoke('g9')]);
    assert.equal(updates, 2, 'a retry after the failure runs the update again, once');
  });

  test('of two requests that loaded one code, the one that consumes second loses, even after the grant was revoked in between', async () => {
    const { codes, grants, revoked } = setup();
    await grants.upsert('g1', { jti: 'g1' }, 60);
    await codes.upsert('sva_1', { jti: 'sva_1', grantId: 'g1' }, 120);
    const loadedByA = await codes.find('sva_1');
    const loadedByD = await codes.find('sva_1');
    assert.equal(loadedByA?.consumed, undefined);
    assert.equal(loadedByD?.consumed, undefined);
    await codes.consume('sva_1'); // A wins
    assert.ok((await codes.find('sva_1'))?.consumed, 'a third request sees it used, and revokes the grant');
    assert.deepEqual(revoked, ['g1']);
    // D loaded the code before any of that and only now consumes it: it must lose.
    await assert.rejects(codes.consume('sva_1'), { name: 'InvalidGrant' });
  });

  test('a used code is remembered after its grant is gone, so presenting it later still revokes', async () => {
    const { codes, revoked } = setup();
    await codes.upsert('sva_2', { jti: 'sva_2', grantId: 'g2' }, 120);
    await codes.consume('sva_2');
    await codes.find('sva_2');
    await assert.rejects(codes.consume('sva_2'), { name: 'InvalidGrant' });
    assert.ok(revoked.every((grantId) => grantId === 'g2') && revoked.length >= 1);
  });

  test('destroying a grant removes everything issued under it', async () => {
    const { codes, grants, revoked } = setup();
    await grants.upsert('g3', { jti: 'g3' }, 60);
    await codes.upsert('sva_3', { jti: 'sva_3', grantId: 'g3' }, 120);
    await grants.destroy('g3');
    assert.equal(await codes.find('sva_3'), undefined);
    assert.equal(await grants.find('g3'), undefined);
    assert.deepEqual(revoked, ['g3']);
  });

  test("a code's use taken back a moment after the retry arrived (a 503'd redemption): the retry may redeem it", async () => {
    const { store, claims } = claimRecordingStore();
    const revoked: string[] = [];
    const Adapter = storeAdapter(
      store,
      storeFamilies(store, { grantRevoked: async (grantId) => void revoked.push(grantId) }),
    );
    const codes = new Adapter('AuthorizationCode');
    await codes.upsert('sva_5', { jti: 'sva_5', grantId: 'g5' }, 120);
    await codes.consume('sva_5'); // the redemption whose answer was lost: its process takes the mark back
    setTimeout(() => void store.delete(claims), 300);
    assert.equal((await codes.find('sva_5'))?.consumed, undefined, 'found unused once its mark is gone');
    assert.deepEqual(revoked, []);
  });

  test('a code used just now and not taken back is a replay, answered once the grace is over', async () => {
    const { codes, revoked } = setup();
    await codes.upsert('sva_6', { jti: 'sva_6', grantId: 'g6' }, 120);
    await codes.consume('sva_6');
    const started = Date.now();
    assert.ok((await codes.find('sva_6'))?.consumed);
    assert.ok(Date.now() - started >= undoGraceMs - 100, 'looked at again for the grace first');
    assert.deepEqual(revoked, ['g6']);
  });
});
