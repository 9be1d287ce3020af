// The production graph holds production code: from each service's main.ts, the modules it imports
// (our own files followed through relative imports and @devplat/* exports, other packages only
// named) are sources of the packages and services, and none of them brings in the OpenAPI tooling
// (ajv, yaml, Redocly: @devplat/contract/openapi is the tests' and tools' entry), the benchmarks or
// the test support. Two files may take ajv and yaml: @devplat/contract/requests, with which the
// console and admin APIs check each request against their documents, and the schema compiler it
// shares with the validators (documents.ts); they are reached by those doors and by no other
// service. A static walk: starting a service would open ports and connect
// to databases.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

const repoRoot = new URL('../../../../', import.meta.url).pathname;

// `import … from 'x'`, `export … from 'x'` and `import 'x'` opening a line, `import('x')` anywhere.
// Type-only ones (`import type`, `export type`) are erased when Node strips the types, so are skipped.
const specifierPattern =
  /^\s*(?:import|export)(?!\s+type\s)(?:[^'"]*?\sfrom)?\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

const forbidden = /^(ajv|ajv-formats|yaml|autocannon|@redocly\/.+|@seriousme\/.+|@devplat\/(test|bench))$/;
const productionSource = /^(packages\/[^/]+|services)\/[^/]+\/src\//;
const openapiEntry = 'packages/1-foundation/contract/src/openapi.ts';
const requestChecks = 'packages/1-foundation/contract/src/requests.ts';
/** The files the request checks compile the documents in. */
const requestCheckFiles = [requestChecks, 'packages/1-foundation/contract/src/documents.ts'];
/** The packages the request checks compile the documents with. */
const requestCheckTools = /^(ajv|ajv-formats|yaml)$/;
/** The entries whose doors check requests against an OpenAPI document: the console, the admin API, npm start's. */
const checkingDoors = /^services\/(console\/src\/main|admin\/src\/serve|platform\/src\/main)\.ts$/;

/** The package a bare specifier names: `ajv/dist/2020.js` → ajv, `@redocly/cli/x` → @redocly/cli. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

interface Graph {
  /** Our files reached, relative to the repository. */
  files: Set<string>;
  /** Every other package named, and by which file. */
  imports: { file: string; name: string }[];
}

function importGraph(entry: string): Graph {
  const seen = new Set<string>();
  const imports: Graph['imports'] = [];
  const pending = [resolve(repoRoot, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, staticSpecifier, dynamicSpecifier] of readFileSync(file, 'utf8').matchAll(specifierPattern)) {
      const specifier = (staticSpecifier ?? dynamicSpecifier) as string;
      if (specifier.startsWith('node:')) continue;
      const name = packageOf(specifier);
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier));
      // Through the package's "exports", as Node resolves it (to the real path, not the symlink).
      else if (name.startsWith('@devplat/') && !forbidden.test(name))
        pending.push(createRequire(file).resolve(specifier));
      else imports.push({ file: relative(repoRoot, file), name });
    }
  }
  return { files: new Set([...seen].map((file) => relative(repoRoot, file))), imports };
}

// Every service's entry point, and the admin API's (services/admin/src/serve.ts) beside its command.
const entries = [
  ...readdirSync(resolve(repoRoot, 'services')).map((service) => `services/${service}/src/main.ts`),
  'services/admin/src/serve.ts',
];

describe('the production import graph', () => {
  test('the walk sees the OpenAPI entry import ajv and yaml, and a service reach the catalogue', () => {
    const named = importGraph(openapiEntry).imports.map(({ name }) => name);
    assert.ok(named.includes('ajv') && named.includes('yaml'), named.join(', '));
    assert.ok(importGraph('services/api/src/main.ts').files.has('packages/1-foundation/contract/src/catalogue.ts'));
  });

  for (const entry of entries) {
    test(`${entry} reaches neither the OpenAPI tooling nor the benchmarks nor the test support`, () => {
      const { files, imports } = importGraph(entry);
      const unwanted = imports.filter(
        ({ file, name }) => forbidden.test(name) && !(requestCheckFiles.includes(file) && requestCheckTools.test(name)),
      );
      assert.deepEqual(
        unwanted.map(({ file, name }) => `${file} imports ${name}`),
        [],
      );
      assert.deepEqual(
        [...files].filter((file) => !productionSource.test(file) || file === openapiEntry),
        [],
      );
      assert.equal(files.has(requestChecks), checkingDoors.test(entry), `${entry} and the request checks`);
    });
  }
});
