// Every request body and every answer of the 1.1.0 document carries examples, and every example
// conforms to its media type's schema, checked with ajv set up as src/openapi.ts sets it up. Form
// examples are checked in the decoded form the token and revocation endpoints read. The oauth2
// security scheme lists exactly the catalogue's scopes.
import assert from 'node:assert/strict';
import { parse as parseForm } from 'node:querystring';
import { describe, test } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { appScopes, scopeNames, scopes, userScopes } from '../src/index.ts';
import { loadContractDocument } from '../src/openapi.ts';

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, Json>;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const formType = 'application/x-www-form-urlencoded';
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Everything wrong with the document's examples; empty when every one is present and conforms. */
function exampleProblems(document: Json): string[] {
  const components = (document.components ?? {}) as Json;
  // As ContractValidator builds it: the components under the id "contract", local refs rewritten.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'contract', components });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (schema: Json): ValidateFunction => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"contract#/components/')));
      compiled.set(key, validate);
    }
    return validate;
  };

  const referencedExamples = new Set<string>();
  const resolve = (node: unknown, where: string): unknown => {
    const seen = new Set<string>();
    while (isObject(node) && typeof node.$ref === 'string') {
      const ref = node.$ref;
      if (!ref.startsWith('#/') || seen.has(ref)) throw new Error(`${where}: cannot resolve ${ref}`);
      seen.add(ref);
      if (ref.startsWith('#/components/examples/')) referencedExamples.add(ref);
      let target: unknown = document;
      for (const part of ref.slice(2).split('/')) {
        const name = part.replaceAll('~1', '/').replaceAll('~0', '~');
        target = isObject(target) ? target[name] : undefined;
      }
      if (target === undefined) throw new Error(`${where}: ${ref} does not exist`);
      node = target;
    }
    return node;
  };

  const problems: string[] = [];
  // A shared object (a $ref target, a YAML alias) is checked once, where it is first met.
  const checked = new WeakSet<object>();
  const firstTime = (node: object) => !checked.has(node) && Boolean(checked.add(node));
  const check = (schema: Json | undefined, value: unknown, where: string) => {
    if (!schema) return void problems.push(`${where}: no schema to check the example against`);
    const validate = validator(schema);
    if (!validate(value)) {
      problems.push(...(validate.errors ?? []).map((e) => `${where}: value${e.instancePath} ${e.message}`));
    }
  };

  /** The fields a form example carries once decoded, as readForm (packages/2-infrastructure/http) decodes a form. */
  const decodeForm = (value: unknown, where: string): Record<string, string> | undefined => {
    let text: string;
    if (typeof value === 'string') text = value;
    else if (isObject(value)) {
      const fields = Object.entries(value);
      const notText = fields.find(([, field]) => typeof field !== 'string');
      if (notText) return void problems.push(`${where}: the form field ${notText[0]} is not a string`);
      text = new URLSearchParams(fields as [string, string][]).toString();
    } else {
      return void problems.push(`${where}: a form example must be a string or an object`);
    }
    const decoded: Record<string, string> = {};
    for (const [name, field] of Object.entries(parseForm(text))) {
      if (typeof field !== 'string') return void problems.push(`${where}: the form field ${name} appears twice`);
      decoded[name] = field;
    }
    return decoded;
  };

  /** The examples of one media type: at least one, each with a summary and a value that conforms. */
  const checkMedia = (mediaNode: unknown, type: string, where: string) => {
    const media = resolve(mediaNode, where) as Media;
    if (!firstTime(media)) return;
    const examples: [string, unknown][] = [];
    if ('example' in media) examples.push(['example', media.example]);
    for (const [name, exampleNode] of Object.entries(media.examples ?? {})) {
      const at = `${where} example ${name}`;
      const example = resolve(exampleNode, at) as Json;
      if (typeof example.summary !== 'string' || example.summary === '') problems.push(`${at}: no summary`);
      if (!('value' in example)) problems.push(`${at}: no value (externalValue is not checked)`);
      else examples.push([name, example.value]);
    }
    if (examples.length === 0) problems.push(`${where}: no example`);
    for (const [name, value] of examples) {
      const at = `${where} example ${name}`;
      const schema = media.schema && (resolve(media.schema, at) as Json);
      if (type === formType) {
        const decoded = decodeForm(value, at);
        if (decoded) check(schema, decoded, at);
      } else {
        check(schema, value, at);
      }
    }
  };

  /** Examples beside a schema outside content (parameters, headers) are optional but must conform. */
  const checkOptional = (node: Json, where: string) => {
    if (!firstTime(node)) return;
    const values: [string, unknown][] = [];
    if ('example' in node) values.push(['example', node.example]);
    for (const [name, exampleNode] of Object.entries((node.examples ?? {}) as Json)) {
      values.push([name, (resolve(exampleNode, `${where} example ${name}`) as Json).value]);
    }
    for (const [name, value] of values) check(node.schema as Json | undefined, value, `${where} example ${name}`);
  };

  const checkResponse = (responseNode: unknown, where: string) => {
    const response = resolve(responseNode, where) as Json;
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      checkOptional(resolve(header, `${where} header ${name}`) as Json, `${where} header ${name}`);
    }
    // A response without content (revocation's 200) has an empty body: nothing to exemplify.
    for (const [type, media] of Object.entries((response.content ?? {}) as Json)) {
      checkMedia(media, type, `${where} ${type}`);
    }
  };

  const checkRequestBody = (bodyNode: unknown, where: string) => {
    const body = resolve(bodyNode, where) as Json;
    const content = Object.entries((body.content ?? {}) as Json);
    if (content.length === 0) problems.push(`${where}: no media type`);
    for (const [type, media] of content) checkMedia(media, type, `${where} ${type}`);
  };

  for (const [path, itemNode] of Object.entries((document.paths ?? {}) as Json)) {
    const item = resolve(itemNode, path) as Json;
    for (const method of methods.filter((m) => m in item)) {
      const operation = item[method] as Json;
      const where = `${method.toUpperCase()} ${path}`;
      for (const parameter of [...((item.parameters ?? []) as Json[]), ...((operation.parameters ?? []) as Json[])]) {
        const resolved = resolve(parameter, where) as Json;
        checkOptional(resolved, `${where} parameter ${String(resolved.name)}`);
      }
      if (operation.requestBody) checkRequestBody(operation.requestBody, `${where} request`);
      const responses = Object.entries((operation.responses ?? {}) as Json);
      if (responses.length === 0) problems.push(`${where}: no responses`);
      for (const [status, response] of responses) checkResponse(response, `${where} → ${status}`);
    }
  }
  // The shared ones on their own as well, whether an operation uses them or not.
  for (const [name, response] of Object.entries((components.responses ?? {}) as Json)) {
    checkResponse(response, `components/responses/${name}`);
  }
  for (const [name, body] of Object.entries((components.requestBodies ?? {}) as Json)) {
    checkRequestBody(body, `components/requestBodies/${name}`);
  }
  for (const [name, header] of Object.entries((components.headers ?? {}) as Json)) {
    checkOptional(resolve(header, `components/headers/${name}`) as Json, `components/headers/${name}`);
  }
  // A shared example is checked where a media type refers to it, so one that nothing uses is unchecked.
  for (const name of Object.keys((components.examples ?? {}) as Json)) {
    const ref = `#/components/examples/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (!referencedExamples.has(ref)) problems.push(`components/examples/${name}: no media type uses it`);
  }
  return problems;
}

interface OAuthFlow {
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}

describe('contract 1.1.0 examples', () => {
  const document = loadContractDocument('1.1.0');

  test('every request body and every answer has examples, and each conforms to its schema', () => {
    assert.deepEqual(exampleProblems(document), []);
  });

  test('the check notices a missing or a corrupted example', () => {
    const mutated = (change: (copy: Json) => void): string[] => {
      const copy = structuredClone(document);
      change(copy);
      return exampleProblems(copy);
    };
    const at = (copy: Json, ...names: string[]): Json => names.reduce<Json>((node, name) => node[name] as Json, copy);
    const tokenForm = (copy: Json) =>
      at(copy, 'paths', '/oauth/token', 'post', 'requestBody', 'content', formType, 'examples');
    const problem404 = (copy: Json) =>
      at(copy, 'components', 'responses', 'Problem404', 'content', 'application/problem+json', 'examples');
    const cases: [string, (copy: Json) => void][] = [
      [
        'a Problem with a 2xx status',
        (copy) => Object.assign(at(problem404(copy), 'notFound', 'value'), { status: 200 }),
      ],
      [
        'a Problem with a member too many',
        (copy) => Object.assign(at(problem404(copy), 'notFound', 'value'), { x: 1 }),
      ],
      [
        'a Problem without its examples',
        (copy) =>
          delete at(copy, 'components', 'responses', 'Problem404', 'content', 'application/problem+json').examples,
      ],
      [
        'a form with an unknown field',
        (copy) => Object.assign(at(tokenForm(copy), 'clientCredentials', 'value'), { foo: 'bar' }),
      ],
      [
        'a form with a client id of the wrong shape',
        (copy) => Object.assign(at(tokenForm(copy), 'clientCredentialsPost', 'value'), { client_id: 'svc_ABC' }),
      ],
      [
        'a form given as text with a repeated field',
        (copy) =>
          Object.assign(at(tokenForm(copy), 'clientCredentials'), {
            value: 'grant_type=client_credentials&scope=a&scope=b',
          }),
      ],
      [
        'a form field that is not text',
        (copy) => Object.assign(at(tokenForm(copy), 'authorizationCode', 'value'), { code_verifier: 42 }),
      ],
      [
        'a pairwise subject of the wrong shape',
        (copy) =>
          Object.assign(
            at(
              copy,
              'paths',
              '/me',
              'get',
              'responses',
              '200',
              'content',
              'application/json',
              'examples',
              'profile',
              'value',
            ),
            { sub: 'player-42' },
          ),
      ],
      ['an example without a summary', (copy) => delete at(tokenForm(copy), 'refreshToken').summary],
      [
        'a header example off its schema',
        (copy) => Object.assign(at(copy, 'components', 'headers', 'Cache-Control'), { example: 'no-cache' }),
      ],
    ];
    for (const [name, change] of cases) assert.notDeepEqual(mutated(change), [], name);
    // A form example given as text is decoded first, and then it conforms.
    assert.deepEqual(
      mutated((copy) =>
        Object.assign(at(tokenForm(copy), 'clientCredentials'), {
          value: 'grant_type=client_credentials&scope=city.public.read',
        }),
      ),
      [],
    );
  });

  test('the oauth2 scheme lists exactly the catalogue scopes, per flow as the grants allow them', () => {
    const schemes = (document.components as Json).securitySchemes as Record<string, Json>;
    assert.deepEqual(Object.keys(schemes).sort(), ['bearerAuth', 'clientSecretBasic', 'oauth2']);
    const oauth2 = schemes.oauth2 as { type: string; flows: Record<string, OAuthFlow> };
    assert.equal(oauth2.type, 'oauth2');
    assert.deepEqual(Object.keys(oauth2.flows).sort(), ['authorizationCode', 'clientCredentials']);
    const { authorizationCode, clientCredentials } = oauth2.flows as Record<string, OAuthFlow>;
    assert.ok(authorizationCode && clientCredentials);
    assert.deepEqual(Object.keys(clientCredentials.scopes), [...appScopes]);
    assert.deepEqual(Object.keys(authorizationCode.scopes), [...userScopes]);
    const listed = new Set([...Object.keys(clientCredentials.scopes), ...Object.keys(authorizationCode.scopes)]);
    assert.deepEqual([...listed].sort(), [...scopeNames].sort());
    for (const flow of [clientCredentials, authorizationCode]) {
      for (const [scope, description] of Object.entries(flow.scopes)) {
        const entry = scopes[scope as keyof typeof scopes];
        assert.ok(description.includes(entry.grants), `${scope}: ${description}`);
        assert.ok(description.includes(`Audience: ${entry.audience}.`), `${scope}: ${description}`);
      }
    }

    // The URLs are the metadata's endpoints (its example shows the embedded platform's defaults).
    const metadata = (
      (document.paths as Json)['/.well-known/oauth-authorization-server'] as {
        get: { responses: { '200': { content: { 'application/json': { examples: { metadata: { value: Json } } } } } } };
      }
    ).get.responses['200'].content['application/json'].examples.metadata.value;
    assert.equal(authorizationCode.authorizationUrl, metadata.authorization_endpoint);
    assert.equal(authorizationCode.tokenUrl, metadata.token_endpoint);
    assert.equal(authorizationCode.refreshUrl, metadata.token_endpoint);
    assert.equal(clientCredentials.tokenUrl, metadata.token_endpoint);
    assert.equal(clientCredentials.refreshUrl, undefined, 'client credentials issue no refresh token');
    assert.deepEqual(metadata.scopes_supported, [...scopeNames]);
  });

  test('each bearer-protected operation accepts bearerAuth or oauth2 with the same scopes', () => {
    const security = (path: string) =>
      ((document.paths as Json)[path] as { get: { security: Record<string, string[]>[] } }).get.security;
    assert.deepEqual(security('/cities'), [{ bearerAuth: ['city.public.read'] }, { oauth2: ['city.public.read'] }]);
    assert.deepEqual(security('/me'), [{ bearerAuth: ['profile.basic.read'] }, { oauth2: ['profile.basic.read'] }]);
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const requirements = (operation.security ?? []) as Record<string, string[]>[];
        const bearer = requirements.flatMap((r) => (r.bearerAuth ? [r.bearerAuth] : []));
        const oauth2 = requirements.flatMap((r) => (r.oauth2 ? [r.oauth2] : []));
        assert.deepEqual(oauth2, bearer, `${method.toUpperCase()} ${path}`);
        for (const scope of oauth2.flat()) assert.ok((scopeNames as readonly string[]).includes(scope), scope);
      }
    }
  });
});
