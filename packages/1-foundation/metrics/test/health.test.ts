// The health families the alerts read (health.ts): readiness changes counted from the second
// evaluation on, stores by their checks, sign-in locks starting at 0, and the key's and the
// backlog's families only in a process that watches them, read once per scrape.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMetrics } from '../src/index.ts';

const sample = async (metrics: ReturnType<typeof createMetrics>, line: RegExp) =>
  (await metrics.registry.metrics()).split('\n').find((text) => line.test(text));

describe('health metrics', () => {
  test('devplat_ready follows each evaluation; a change is counted, the first evaluation is not', async () => {
    const metrics = createMetrics();
    for (const ready of [true, true, false, false, true]) metrics.recordReadiness(ready);
    assert.equal(await sample(metrics, /^devplat_ready /), 'devplat_ready 1');
    assert.equal(await sample(metrics, /^devplat_readiness_changes_total /), 'devplat_readiness_changes_total 2');
    const fresh = createMetrics();
    fresh.recordReadiness(false);
    assert.equal(await sample(fresh, /^devplat_readiness_changes_total /), 'devplat_readiness_changes_total 0');
  });

  test('devplat_dependency_up is per store, absent until its check ran', async () => {
    const metrics = createMetrics();
    assert.equal(await sample(metrics, /^devplat_dependency_up\{/), undefined);
    metrics.recordDependency('postgresql', true);
    metrics.recordDependency('redis', false);
    assert.equal(await sample(metrics, /dependency="postgresql"/), 'devplat_dependency_up{dependency="postgresql"} 1');
    assert.equal(await sample(metrics, /dependency="redis"/), 'devplat_dependency_up{dependency="redis"} 0');
  });

  test("a door's lock series start at 0 and count each lock by kind", async () => {
    const metrics = createMetrics();
    const locked = metrics.signInLocks('player-sign-in');
    assert.equal(
      await sample(metrics, /kind="address"/),
      'devplat_sign_in_locks_total{door="player-sign-in",kind="address"} 0',
    );
    locked('account');
    locked('account');
    assert.equal(
      await sample(metrics, /kind="account"/),
      'devplat_sign_in_locks_total{door="player-sign-in",kind="account"} 2',
    );
  });

  test('the signing key age exists only where it is watched, by kid, and not while unknown', async () => {
    const metrics = createMetrics();
    assert.equal(await sample(metrics, /devplat_signing_key_age_seconds/), undefined);
    let age: number | null = null;
    metrics.watchSigningKey(async () => ({ kid: 'k1', ageSeconds: age }));
    assert.equal(await sample(metrics, /^devplat_signing_key_age_seconds\{/), undefined);
    age = 42;
    assert.equal(
      await sample(metrics, /^devplat_signing_key_age_seconds\{/),
      'devplat_signing_key_age_seconds{kid="k1"} 42',
    );
  });

  test('the outbox families exist only where watched, and both come from one read per scrape', async () => {
    const metrics = createMetrics();
    assert.equal(await sample(metrics, /devplat_outbox/), undefined);
    let reads = 0;
    metrics.watchOutbox(async () => {
      reads += 1;
      return { due: 3, oldestDueAgeSeconds: 12.5 };
    });
    const text = await metrics.registry.metrics();
    assert.match(text, /^devplat_outbox_backlog 3$/m);
    assert.match(text, /^devplat_outbox_oldest_due_age_seconds 12.5$/m);
    assert.equal(reads, 1);
    metrics.watchOutbox(async () => ({ due: 0, oldestDueAgeSeconds: null }));
    assert.match(
      await metrics.registry.metrics(),
      /^devplat_outbox_oldest_due_age_seconds 0$/m,
      'a later watch takes over',
    );
  });
});
