// docs/architecture.md is where a reader looks for the file of a rule: every file it names must
// exist, and every table of the schema must have its owning room in the Domain rooms table.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const root = join(import.meta.dirname, '../..');
const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

const skipped = new Set(['node_modules', '.git', '.toolchain', '.data', '.run', 'generated']);
function repoFiles(directory = '', files: string[] = []): string[] {
  for (const entry of readdirSync(join(root, directory), { withFileTypes: true })) {
    if (skipped.has(entry.name)) continue;
    const path = directory ? `${directory}/${entry.name}` : entry.name;
    if (entry.isDirectory()) repoFiles(path, files);
    else files.push(path);
  }
  return files;
}

/**
 * Every `quoted` word that names a source file: a path from the root, or the end of one (a bare
 * file name, or a path inside the service or package the sentence is about).
 */
const namedFiles = () =>
  [...architecture.matchAll(/`([\w./@-]+\.(?:ts|mjs|json|yaml|prisma|sh|conf\.template))`/g)].map(
    (match) => match[1] as string,
  );

describe('docs/architecture.md', () => {
  test('every file it names exists', () => {
    const files = repoFiles();
    const missing = namedFiles().filter(
      (file) => !existsSync(join(root, file)) && !files.some((path) => path.endsWith(`/${file}`)),
    );
    assert.deepEqual([...new Set(missing)], []);
  });

  test('what a request carries in ctx.state is typed once, in the state.ts files it names', () => {
    const extending = repoFiles().filter(
      (path) => path.endsWith('.ts') && /^declare module 'koa'/m.test(readFileSync(join(root, path), 'utf8')),
    );
    assert.ok(architecture.includes('typed once by extending `koa.DefaultState`'));
    assert.ok(extending.length >= 2, `${extending.length} files extend koa's types`);
    assert.deepEqual(
      extending.filter((path) => !path.endsWith('/state.ts')),
      [],
      'only a state.ts extends koa.DefaultState',
    );
  });

  test('the doors hold no rules: a service refuses only input it cannot read or a row it did not find', () => {
    const refusals = repoFiles()
      .filter((path) => /^services\/[^/]+\/src\/.*\.ts$/.test(path))
      .flatMap((path) =>
        [...readFileSync(join(root, path), 'utf8').matchAll(/(?:refuse|new Refusal)\(\s*'([A-Z_]+)'/g)].map(
          (match) => `${path}: ${match[1]}`,
        ),
      );
    assert.ok(architecture.includes('The doors hold no rules of the rooms'));
    assert.ok(refusals.length > 0, 'the services refuse unreadable input somewhere');
    assert.deepEqual(
      refusals.filter((refusal) => !/: (INVALID_INPUT|[A-Z_]+_NOT_FOUND)$/.test(refusal)),
      [],
      "a rule's refusal belongs to its room in packages/3-domain/domain",
    );
  });

  test('every grant of the token path is in its rule table, the one served ahead of the provider too', () => {
    const section = architecture.slice(
      architecture.indexOf('## Where each rule of the token path lives'),
      architecture.indexOf('### What a token request learns'),
    );
    const grants = readdirSync(join(root, 'services/auth/src/grants'));
    assert.ok(grants.includes('app-tokens.ts'));
    assert.deepEqual(
      grants.filter((file) => !section.includes(`\`grants/${file}\``)),
      [],
      'each file of services/auth/src/grants is named in the section',
    );
    assert.match(section, /answered ahead of it by\s+`grants\/app-tokens\.ts`/);
  });

  test('the libraries stand by floor: each imports only its own floor and those below, never the CLI', () => {
    const floors = readdirSync(join(root, 'packages')).sort();
    const floorOf = new Map<string, number>();
    for (const [level, floor] of floors.entries()) {
      for (const name of readdirSync(join(root, 'packages', floor))) {
        const manifest = JSON.parse(readFileSync(join(root, 'packages', floor, name, 'package.json'), 'utf8'));
        floorOf.set(manifest.name, level);
      }
    }
    assert.deepEqual(floors, ['1-foundation', '2-infrastructure', '3-domain', '4-application']);
    const upward = repoFiles('packages')
      .filter((path) => /\/src\/.*\.ts$/.test(path))
      .flatMap((path) => {
        const own = floors.indexOf(path.split('/')[1] as string);
        const imported = [...readFileSync(join(root, path), 'utf8').matchAll(/from '(@devplat\/[\w-]+)/g)];
        return imported
          .map((match) => match[1] as string)
          .filter((name) => !floorOf.has(name) || (floorOf.get(name) as number) > own)
          .map((name) => `${path} imports ${name}`);
      });
    assert.ok(floorOf.size >= 18, `${floorOf.size} libraries found`);
    assert.deepEqual(upward, [], 'an import runs up a floor, or out of the libraries');
  });

  test('every table of the schema has its room in the Domain rooms table', () => {
    const schema = readFileSync(join(root, 'prisma/schema.prisma'), 'utf8');
    const tables = [...schema.matchAll(/@@map\("(\w+)"\)/g)].map((match) => match[1] as string);
    const section = architecture.slice(architecture.indexOf('## Domain rooms'), architecture.indexOf('### Refusals'));
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    const owners = tables.map((table) => [
      table,
      rows.filter((row) => row.split('|')[2]?.includes(`\`${table}\``)).length,
    ]);
    assert.ok(tables.length >= 11, `${tables.length} tables found in the schema`);
    assert.deepEqual(
      owners.filter(([, count]) => count !== 1),
      [],
      'each table is listed in exactly one room',
    );
  });
});
