import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
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
    const get = groupCommit(read, 2);
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
});
