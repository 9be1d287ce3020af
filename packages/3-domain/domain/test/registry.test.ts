import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { seedRegistry } from '../src/registry/index.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

describe('seed registry', () => {
  test('is idempotent and has the promised spread', async () => {
    await seedRegistry(database.prisma);
    const reviewed = await database.prisma.city.findMany({ where: { reviewed: true }, include: { country: true } });
    assert.ok(reviewed.length >= 30);
    assert.ok(new Set(reviewed.map((city) => city.countryCode)).size >= 8);
    assert.ok(new Set(reviewed.map((city) => city.country.region)).size >= 4);
    assert.deepEqual(
      new Set(reviewed.map((city) => city.availability)),
      new Set(['closed', 'closed_beta', 'available']),
    );
    assert.ok((await database.prisma.city.count({ where: { reviewed: false } })) > 0);
  });
});
