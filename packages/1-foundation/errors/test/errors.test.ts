import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DependencyUnavailableError } from '../src/index.ts';

test('a dependency failure is recognised by its class and keeps its cause', () => {
  const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
  const error = new DependencyUnavailableError('Redis', { cause });
  assert.ok(error instanceof DependencyUnavailableError);
  assert.ok(error instanceof Error);
  assert.equal(error.dependency, 'Redis');
  assert.equal(error.message, 'Redis is unavailable');
  assert.equal(error.cause, cause);
  assert.equal(error.name, 'DependencyUnavailableError');
});

test('an error that only carries the name is not a dependency failure', () => {
  const impostor = Object.assign(new Error('PostgreSQL is unavailable'), { name: 'DependencyUnavailableError' });
  assert.equal(impostor instanceof DependencyUnavailableError, false);
});
