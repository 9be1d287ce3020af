// The console API's OpenAPI document: a valid OpenAPI 3.1 document whose every example conforms to
// its schema (with the validator ConsoleApiValidator uses), every request body and answer has an
// example, its Problems agree with the catalogue, and its validator refuses what the document forbids.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { type ProblemCode, problemCodes, problemType } from '../src/index.ts';
import { ConsoleApiValidator, consoleApiDocumentPath, loadConsoleApiDocument } from '../src/openapi.ts';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const pointer = (path: string[]) =>
  `#/${path.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function resolve(document: Json, node: unknown): Json {
  const ref = isObject(node) ? node.$ref : undefined;
  if (typeof ref !== 'string') return node as Json;
  let target: unknown = document;
  for (const part of ref.replace(/^#\//, '').split('/')) {
    target = (target as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return target as Json;
}

/** Every example (`example`, or each of `examples`) beside a `schema`, wherever it is, with where. */
function examples(document: Json): { where: string; schema: Json; value: unknown; owner: Json }[] {
  const found: { where: string; schema: Json; value: unknown; owner: Json }[] = [];
  const visit = (node: unknown, path: string[]) => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, [...path, String(index)]);
      return;
    }
    if (!isObject(node)) return;
    if (isObject(node.schema)) {
      if ('example' in node)
        found.push({ where: pointer([...path, 'example']), schema: node.schema, value: node.example, owner: node });
      if (isObject(node.examples)) {
        for (const [name, example] of Object.entries(node.examples)) {
          const value = resolve(document, example).value;
          found.push({ where: pointer([...path, 'examples', name]), schema: node.schema, value, owner: node });
        }
      }
    }
    for (const [key, child] of Object.entries(node)) {
      // Examples are values, not places where more examples live.
      if (key !== 'example' && key !== 'examples') visit(child, [...path, key]);
    }
  };
  visit(document, []);
  return found;
}

/** The problems of every example of the document; empty when each conforms to its schema. */
function exampleProblems(validator: ConsoleApiValidator, document: Json): string[] {
  return examples(document).flatMap(({ where, schema, value, owner }) => {
    const errors = validator.checkValue(schema, value).map((error) => `${where}${error}`);
    const eventData = owner['x-event-data'];
    if (isObject(eventData) && typeof value === 'string')
      errors.push(...validator.checkEvents(where, eventData, value));
    return errors;
  });
}

/** Every request body and answer media type of the document without an example. */
function mediaWithoutExamples(document: Json): string[] {
  const missing: string[] = [];
  const media = (owner: Json, path: string[]) => {
    for (const [type, object] of Object.entries((owner.content ?? {}) as Record<string, Json>)) {
      const many = isObject(object.examples) && Object.keys(object.examples).length > 0;
      if (!('example' in object) && !many) missing.push(`${pointer([...path, 'content', type])}`);
    }
  };
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      if (operation.requestBody)
        media(resolve(document, operation.requestBody), ['paths', path, method, 'requestBody']);
      for (const [status, answer] of Object.entries(operation.responses)) {
        media(resolve(document, answer), ['paths', path, method, 'responses', status]);
      }
    }
  }
  const components = document.components as { responses: Json; requestBodies: Json };
  for (const kind of ['responses', 'requestBodies'] as const) {
    for (const [name, object] of Object.entries(components[kind])) media(object as Json, ['components', kind, name]);
  }
  return [...new Set(missing)];
}

describe('the console API document', () => {
  const document = loadConsoleApiDocument();
  const validator = new ConsoleApiValidator();

  test('is a valid OpenAPI 3.1.1 document, version 1.0.0, served under {console_url}/api', async () => {
    const result = await new Validator().validate(consoleApiDocumentPath());
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    const { openapi, info, servers } = document as { openapi: string; info: { version: string }; servers: Json[] };
    assert.equal(openapi, '3.1.1');
    assert.equal(info.version, '1.0.0');
    assert.deepEqual(servers[0], {
      url: '{console_url}/api',
      description: 'The developer console (CONSOLE_URL)',
      variables: { console_url: { default: 'http://127.0.0.3:8082' } },
    });
  });

  test('has every endpoint of the console API', () => {
    const closed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].flatMap((method) => [
      `${method} /apps/{client_id}/production-credentials`,
      `${method} /production-credentials`,
    ]);
    assert.deepEqual(
      validator.operations().sort(),
      [
        'DELETE /api-keys/{key_id}',
        'DELETE /apps/{client_id}',
        'DELETE /apps/{client_id}/secrets/{secret_id}',
        'DELETE /sessions/current',
        'GET /account',
        'GET /account/history',
        'GET /api-keys',
        'GET /apps',
        'GET /apps/{client_id}',
        'GET /apps/{client_id}/deliveries',
        'GET /apps/{client_id}/history',
        'GET /apps/{client_id}/requests',
        'GET /apps/{client_id}/requests/stream',
        'GET /apps/{client_id}/events',
        'GET /sandbox-players',
        'PATCH /apps/{client_id}',
        'POST /accounts',
        'POST /api-keys',
        'POST /apps',
        'POST /apps/{client_id}/disable',
        'POST /apps/{client_id}/enable',
        'POST /apps/{client_id}/secrets',
        'POST /apps/{client_id}/triggers',
        'POST /apps/{client_id}/webhooks/test',
        'POST /deliveries/{delivery_id}/replay',
        'POST /sandbox-players',
        'POST /sandbox-players/{player_id}/disable',
        'POST /sandbox-players/{player_id}/enable',
        'POST /sessions',
        ...closed,
      ].sort(),
    );
  });

  test('every example conforms to its schema', () => {
    const found = examples(document);
    assert.ok(found.length > 60, `only ${found.length} examples found`);
    assert.deepEqual(exampleProblems(validator, document), []);
  });

  test('every request body and answer media type has an example', () => {
    assert.deepEqual(mediaWithoutExamples(document), []);
  });

  test('a corrupted or missing example is caught', () => {
    const corrupted = structuredClone(document) as Json;
    const responses = (corrupted.components as { responses: Record<string, { content: Record<string, Json> }> })
      .responses;
    const media = (name: string, type = 'application/json') => responses[name]?.content[type] as Json;
    (media('AppFound').example as Json).client_id = 'svc_not-a-client-id';
    (media('Unavailable', 'application/problem+json').examples as Record<string, Json>).storeDown = {
      value: { ...problemExample, code: 'FEATURE_DISABLED' },
    };
    media('EventStream', 'text/event-stream').example = (
      media('EventStream', 'text/event-stream').example as string
    ).replace('"type":"consent.granted"', '"type":"consent.lost"');
    delete media('SessionStarted').example;
    // Each example that fails, once (the YAML shares one App example among four answers).
    const failing = new Set(
      exampleProblems(validator, corrupted).map(
        (problem) => /^#\/\S+?\/(examples\/[^/ :]+|example)/.exec(problem)?.[0],
      ),
    );
    const answer = (name: string, type = 'application~1json') => `#/components/responses/${name}/content/${type}`;
    assert.deepEqual([...failing].sort(), [
      `${answer('AppCreated')}/example`,
      `${answer('AppEnabled')}/example`,
      `${answer('AppFound')}/example`,
      `${answer('AppList')}/example`,
      `${answer('EventStream', 'text~1event-stream')}/example`,
      `${answer('Unavailable', 'application~1problem+json')}/examples/storeDown`,
    ]);
    assert.deepEqual(mediaWithoutExamples(corrupted), [
      '#/paths/~1sessions/post/responses/201/content/application~1json',
      '#/components/responses/SessionStarted/content/application~1json',
    ]);
  });

  test("its Problems carry the catalogue's status, title and type for each code", () => {
    const variants = ((document.components as { schemas: Record<string, Json> }).schemas.Problem?.oneOf ?? []) as {
      properties: Record<string, { const: unknown }>;
    }[];
    assert.ok(variants.length > 0);
    for (const { properties } of variants) {
      const code = properties.code?.const as ProblemCode;
      assert.ok(code in problemCodes, `${code} is in the catalogue`);
      assert.deepEqual(
        { status: properties.status?.const, title: properties.title?.const, type: properties.type?.const },
        { status: problemCodes[code].status, title: problemCodes[code].title, type: problemType(code) },
        code,
      );
    }
  });

  test('an API key is listed without the key itself, and asked for with a scope and at most 365 days', () => {
    const listed = {
      id: '1e7b3c5d-9a2f-4c6e-8b0d-2f4a6c8e0a13',
      name: 'CI deploy',
      scope: 'read',
      hint: 'x7Qa',
      status: 'active',
      created_at: '2026-11-23T09:41:02.118Z',
      expires_at: '2026-12-23T09:41:02.118Z',
      last_used_at: null,
      revoked_at: null,
    };
    assert.deepEqual(validator.checkSchema('ApiKey', listed), []);
    assert.notDeepEqual(validator.checkSchema('ApiKey', { ...listed, key: `devplat_key_${'a'.repeat(43)}` }), []);
    assert.notDeepEqual(validator.checkSchema('ApiKey', { ...listed, scope: 'admin' }), []);
    assert.notDeepEqual(
      validator.checkSchema('ApiKey', { ...listed, status: 'revoked' }),
      [],
      'revoked has revoked_at',
    );
    const asked = (body: unknown) =>
      validator.checkRequest({
        method: 'POST',
        path: '/api-keys',
        contentType: 'application/json',
        body: JSON.stringify(body),
      });
    assert.deepEqual(asked({ name: 'CI', scope: 'write', expires_in_days: 365 }), []);
    assert.notDeepEqual(asked({ name: 'CI', scope: 'write', expires_in_days: 366 }), []);
    assert.notDeepEqual(asked({ name: 'CI' }), []);
  });

  test('the validator refuses what the document forbids', () => {
    const common = {
      'x-request-id': problemExample.request_id,
      'x-service-api-version': '1.0',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
    };
    const answer = (value: unknown, type: string, extra: Record<string, string> = {}) => ({
      headers: new Headers({ ...common, 'content-type': type, ...extra }),
      body: JSON.stringify(value),
    });
    /** Asserts the answer conforms, or departs from the document as `reason` says. */
    const assertCheck = (observed: Parameters<ConsoleApiValidator['check']>[0], reason?: RegExp) => {
      const errors = validator.check(observed);
      if (!reason) assert.deepEqual(errors, []);
      else
        assert.ok(
          errors.some((error) => reason.test(error)),
          `${reason}: ${JSON.stringify(errors)}`,
        );
    };
    const account = {
      id: '5a0c8e4f-2b1d-4c3e-9f7a-6d8b0e2c4a1f',
      email: 'a@example.test',
      kind: 'full',
      display_name: 'A',
    };
    const json = 'application/json; charset=utf-8';
    const ok = { method: 'GET', path: '/account', status: 200, ...answer(account, json) };
    assertCheck(ok);
    assertCheck({ ...ok, ...answer({ ...account, password: 'x' }, json) }, /must NOT have additional properties/);
    assertCheck({ ...ok, status: 201 }, /status not documented for GET \/account/);
    assertCheck({ ...ok, method: 'POST' }, /has no POST, so it answers 405/);
    assertCheck({ ...ok, headers: new Headers({ 'content-type': json }) }, /header X-Request-ID missing/);
    assertCheck({ ...ok, ...answer(account, 'text/plain') }, /content type "text\/plain" not documented/);
    assertCheck({ ...ok, path: '/nothing-here' }, /an unknown path answers 404/);

    const notAllowed = {
      ...problemExample,
      type: 'urn:developer-platform:problem:method-not-allowed',
      title: 'Method not allowed',
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
    };
    const problem = 'application/problem+json';
    const refused = {
      method: 'PUT',
      path: '/apps',
      status: 405,
      ...answer(notAllowed, problem, { allow: 'GET, HEAD, POST' }),
    };
    assertCheck(refused);
    assertCheck({ ...refused, ...answer(notAllowed, problem, { allow: 'GET, POST' }) }, /Allow is "GET, POST"/);
    assertCheck({ ...refused, method: 'GET' }, /405 for a method the path has/);
    assertCheck(
      { ...refused, ...answer({ ...notAllowed, title: 'Nope' }, problem, { allow: 'GET, HEAD, POST' }) },
      /title/,
    );
    assertCheck(
      {
        ...refused,
        ...answer({ ...notAllowed, request_id: `req_${'0'.repeat(32)}` }, problem, { allow: 'GET, HEAD, POST' }),
      },
      /request_id is not the X-Request-ID/,
    );
    assertCheck(
      { ...refused, ...answer({ ...notAllowed, instance: '/api/other' }, problem, { allow: 'GET, HEAD, POST' }) },
      /instance is "\/api\/other"/,
    );
    const closed = { method: 'OPTIONS', path: '/production-credentials', status: 503 };
    const featureDisabled = {
      ...problemExample,
      type: 'urn:developer-platform:problem:feature-disabled',
      title: 'Feature disabled',
      code: 'FEATURE_DISABLED',
      instance: '/api/production-credentials',
    };
    assertCheck({ ...closed, ...answer(featureDisabled, problem) }, undefined);

    const created = (body: string) =>
      validator.checkRequest({ method: 'POST', path: '/apps', contentType: 'application/json', body });
    assert.deepEqual(created('{"name":"A","scopes":["city.public.read"]}'), []);
    assert.ok(created('{"name":"A"}').some((error) => /must have required property 'scopes'/.test(error)));
  });
});

const problemExample = {
  type: 'urn:developer-platform:problem:service-unavailable',
  title: 'Service temporarily unavailable',
  status: 503,
  detail: 'The service is temporarily unavailable. Try again shortly.',
  instance: '/api/apps',
  code: 'SERVICE_UNAVAILABLE',
  request_id: 'req_4f1c2a9b7e3d4c5a8b6f0e1d2c3b4a59',
};
