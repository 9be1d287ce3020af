// The request checks (@devplat/contract/requests) on a small document of their own: which findings
// a path, a query and a body give, in which order, and where an x-refusal's sentence comes from;
// then that both real documents compile and name every operation the doors register.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RequestChecks, requestChecks } from '@devplat/contract/requests';

const document = {
  openapi: '3.1.0',
  paths: {
    '/things/{thing_id}': {
      parameters: [{ $ref: '#/components/parameters/ThingId' }],
      get: {
        parameters: [
          {
            name: 'limit',
            in: 'query',
            'x-refusal': 'limit must be a whole number (got "{value}").',
            schema: { type: 'integer', minimum: 1, maximum: 200 },
          },
          { name: 'status', in: 'query', schema: { enum: ['active', 'revoked'] } },
          { name: 'since', in: 'query', required: true, schema: { type: 'string' } },
        ],
      },
      patch: {
        requestBody: {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingInput' } } },
        },
      },
    },
  },
  components: {
    parameters: {
      ThingId: {
        name: 'thing_id',
        in: 'path',
        required: true,
        'x-refusal': 'No thing has the id {value}.',
        schema: { type: 'string', pattern: '^thg_[a-z]{4}$' },
      },
    },
    schemas: {
      ThingInput: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 5 },
          tags: { type: 'array', items: { type: 'string', format: 'uri' } },
          note: { anyOf: [{ type: 'string' }, { type: 'null' }], 'x-refusal': 'note is text or null.' },
        },
      },
    },
  },
};

const checks = new RequestChecks(document);
const get = checks.operation('GET', '/things/:thingId');
const patch = checks.operation('PATCH', '/things/:thingId');
const ok = { params: { thingId: 'thg_abcd' } };

describe('request checks', () => {
  test('an operation is found by method and the shape of its Koa path; another is not', () => {
    assert.ok(get && patch);
    assert.equal(get.takesBody, false);
    assert.equal(patch.takesBody, true);
    assert.equal(checks.operation('DELETE', '/things/:thingId'), undefined);
    assert.equal(checks.operation('GET', '/things'), undefined);
    assert.equal(checks.operation('GET', '/things/:thingId/parts'), undefined);
  });

  test('the path is checked first, by its schema, with its x-refusal', () => {
    assert.deepEqual(get?.parameters({ params: { thingId: 'nope' }, query: { page: '2' } }), {
      kind: 'invalidPath',
      name: 'thing_id',
      value: 'nope',
      refusal: 'No thing has the id {value}.',
    });
  });

  test('the query: unknown, repeated, missing, then each value whole by its schema', () => {
    const query = (query: Record<string, string | string[]>) => get?.parameters({ ...ok, query });
    assert.deepEqual(query({ since: 'x', page: '2' }), {
      kind: 'unknownParameter',
      name: 'page',
      allowed: ['limit', 'status', 'since'],
    });
    assert.deepEqual(query({ since: 'x', limit: ['1', '2'] }), { kind: 'repeatedParameter', name: 'limit' });
    assert.deepEqual(query({}), { kind: 'missingParameter', name: 'since' });
    assert.equal(query({ since: 'x', limit: '200', status: 'active' }), undefined);
    const tooMany = query({ since: 'x', limit: '201' });
    assert.equal(tooMany?.kind, 'invalidParameter');
    assert.deepEqual(tooMany?.kind === 'invalidParameter' && [tooMany.rule, tooMany.refusal], [
      { keyword: 'maximum', limit: 200 },
      'limit must be a whole number (got "{value}").',
    ]);
    const words = query({ since: 'x', limit: 'many' });
    assert.deepEqual(words?.kind === 'invalidParameter' && words.rule, { keyword: 'type', limit: 'integer' });
    const status = query({ since: 'x', status: 'gone' });
    assert.deepEqual(status?.kind === 'invalidParameter' && [status.value, status.rule], [
      'gone',
      { keyword: 'enum', limit: ['active', 'revoked'] },
    ]);
  });

  test('a body: an object, no unknown member, the required ones, and JSON types only', () => {
    assert.deepEqual(patch?.body([]), { kind: 'notObject' });
    assert.deepEqual(patch?.body('name'), { kind: 'notObject' });
    assert.deepEqual(patch?.body({ name: 'a', colour: 'red' }), {
      kind: 'unknownMember',
      name: 'colour',
      allowed: ['name', 'tags', 'note'],
    });
    assert.deepEqual(patch?.body({}), {
      kind: 'invalidMember',
      name: 'name',
      rule: { keyword: 'required', limit: true },
      expected: ['string'],
    });
    assert.deepEqual(patch?.body({ name: 'a', tags: 'x' }), {
      kind: 'invalidMember',
      name: 'tags',
      rule: { keyword: 'type', limit: 'array' },
      expected: ['array'],
    });
    assert.deepEqual(patch?.body({ name: 'a', note: 3 }), {
      kind: 'invalidMember',
      name: 'note',
      rule: { keyword: 'type', limit: 'string' },
      expected: ['string', 'null'],
      refusal: 'note is text or null.',
    });
    // Only the types: a value's own rules (length, format) are its room's, checked after.
    assert.equal(patch?.body({ name: 'far too long a name', tags: ['not a uri'], note: null }), undefined);
  });

  test('the console and admin documents compile, and name each operation their doors register', () => {
    const consoleChecks = requestChecks('console-api-1.0.0');
    const adminChecks = requestChecks('admin-api-1.0.0');
    assert.ok(consoleChecks.operation('PATCH', '/apps/:clientId')?.takesBody);
    assert.ok(consoleChecks.operation('GET', '/apps/:clientId/requests/stream'));
    assert.ok(adminChecks.operation('POST', '/apps/:clientId/suspend')?.takesBody);
    assert.equal(adminChecks.operation('GET', '/no/such/operation'), undefined);
  });
});
