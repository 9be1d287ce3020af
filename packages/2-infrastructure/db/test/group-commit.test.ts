import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { groupCommit } from '../src/group-commit.ts';

/** A store whose reads the test finishes by hand, recording what each read asked for. */
function manualStore() {
  const reads: { keys: string[]; finish(error?: Error): void }[] = [];
  const read = (keys: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      reads.push({ keys, finish: (error) => (error ? reject(error) : resolve(keys.map((key) => `value of ${key}`))) });
    });
  return { reads, read };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
/** A few event-loop turns: enough for a finished read's follower to go out. */
const turns = async () => {
  for (let i = 0; i < 3; i += 1) await turn();
};

describe('groupCommit', () => {
  test('calls of one turn share one read, and calls for the same key share its value', async () => {
    const { reads, read } = manualStore();
    const get = groupCommit(read);
    const answers = Promise.all([get('a'), get('b'), get('a')]);
    await turn();
    assert.deepEqual(
      reads.map((r) => r.keys),
      [['a', 'b']],
    );
    reads[0]?.finish();
    assert.deepEqual(await answers, ['value of a', 'value of b', 'value of a']);
  });

  test('a call that arrives while a read is in flight is answered by a later read, never the running one', async () => {
    const { reads, read } = manualStore();
    const get = groupCommit(read);
    const first = get('a');
    await turn();
    const second = get('a');
    await turn();
    assert.equal(reads.length, 1, 'one read at a time');
    reads[0]?.finish();
    assert.equal(await first, 'value of a');
    await turns();
    assert.equal(reads.length, 2, 'the waiting call went out in a read of its own');
    reads[1]?.finish();
    assert.equal(await second, 'value of a');
  });

  test('a failed read fails each of its calls, and the next read still goes out', async () => {
    const { reads, read } = manualStore();
    const get = groupCommit(read);
    const failed = Promise.allSettled([get('a'), get('b')]);
    await turn();
    const later = get('c');
    reads[0]?.finish(new Error('store down'));
    assert.deepEqual(
      (await failed).map((result) => result.status),
      ['rejected', 'rejected'],
    );
    await turns();
    reads[1]?.finish();
    assert.equal(await later, 'value of c');
  });

  test('at most maxBatch keys go in one read', async () => {
    const { reads, read } = manualStore();
    const get = groupCommit(read, { maxBatch: 2 });
    const answers = Promise.all(['a', 'b', 'c'].map(get));
    await turn();
    reads[0]?.finish();
    await turns();
    reads[1]?.finish();
    assert.deepEqual(await answers, ['value of a', 'value of b', 'value of c']);
    assert.deepEqual(
      reads.map((r) => r.keys),
      [['a', 'b'], ['c']],
    );
  });

  test('a read that outlives the timeout fails its calls, and the calls behind it go out at once', async () => {
    const { reads, read } = manualStore();
    const get = groupCommit(read, { timeoutMs: 300, dependency: 'PostgreSQL' });
    const hung = get('a');
    await new Promise((resolve) => setTimeout(resolve, 150));
    const behind = get('b'); // waits for the hung read, with half its time left when that one fails
    await assert.rejects(hung, (error: unknown) => {
      assert.ok(error instanceof DependencyUnavailableError);
      assert.equal(error.dependency, 'PostgreSQL');
      return true;
    });
    await turns();
    assert.deepEqual(
      reads.map((r) => r.keys),
      [['a'], ['b']],
      'the next call got a round trip of its own while the first never returned',
    );
    reads[1]?.finish();
    assert.equal(await behind, 'value of b');
    reads[0]?.finish(); // the hung read's late answer reaches no one
  });

  test('a call waits at most the timeout from its own arrival, even behind a hung read', async () => {
    const { reads, read } = manualStore();
    const get = groupCommit(read, { timeoutMs: 300 });
    const first = assert.rejects(get('a'), DependencyUnavailableError);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const arrived = performance.now();
    await assert.rejects(get('b'), DependencyUnavailableError); // its own read never returns either
    const waited = performance.now() - arrived;
    await first;
    assert.equal(reads.length, 2);
    assert.ok(waited < 300 + 100, `waited ${Math.round(waited)} ms`);
  });

  test('a read that returns in time answers as before, and its timer does not hold the process', async () => {
    const get = groupCommit(async (keys: string[]) => keys.map((key) => `value of ${key}`), { timeoutMs: 60_000 });
    assert.deepEqual(await Promise.all([get('a'), get('b')]), ['value of a', 'value of b']);
  });
});
