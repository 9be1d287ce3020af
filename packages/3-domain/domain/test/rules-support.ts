// What the tests of the aggregates' rules (account-, player-, api-key-rules.test.ts) share: a
// database of the test file's own, and the assertion that an operation was refused in so many words.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { Refusal, type RefusalCode } from '../src/refusal.ts';

/** A bare database (no seed) made before the file's tests and dropped after them: call it at the top. */
export function ownDatabase(): { readonly prisma: TestDatabase['prisma'] } {
  let database: TestDatabase | undefined;
  before(async () => {
    database = await createTestDatabase({ seed: false });
  });
  after(() => database?.drop());
  return {
    get prisma() {
      assert.ok(database, 'the database is made before the first test');
      return database.prisma;
    },
  };
}

/** Asserts that `work` is refused with this code and exactly this detail. */
export async function refusedWith(code: RefusalCode, work: Promise<unknown>, detail: string): Promise<void> {
  await assert.rejects(work, (error) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.deepEqual([error.code, error.detail], [code, detail]);
    return true;
  });
}
