// The routes an app answers, read from its routers: each path with its methods (HEAD aside), a
// path that answers every method alike with none, the router's prefix included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Router from '@koa/router';
import { apiApp, createLogger, featureDisabled, operation, routesOf } from '../src/index.ts';

test('every path of every router of the apps, with the methods it answers', () => {
  const logger = createLogger('silent', 'test');
  const first = new Router({ prefix: '/v1' });
  operation(first, '/things', { GET: () => {}, POST: () => {} });
  operation(first, '/things/:id', { DELETE: () => {} });
  featureDisabled(first, ['/elsewhere']);
  const second = new Router();
  operation(second, '/other', { PATCH: () => {} });
  assert.deepEqual(routesOf(apiApp({ logger }, first), apiApp({ logger }, second)), [
    { path: '/v1/things', methods: ['GET', 'POST'] },
    { path: '/v1/things/:id', methods: ['DELETE'] },
    { path: '/v1/elsewhere', methods: [] },
    { path: '/v1/elsewhere/{*rest}', methods: [] },
    { path: '/other', methods: ['PATCH'] },
  ]);
});
