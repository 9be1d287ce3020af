// The CLI stays light: it starts on every keystroke of a completion and in scripts, so it loads the
// contract's catalogue and types but neither Prisma nor the contract's OpenAPI validator, and the
// page template but not the server stack (Koa, pino, the key-value store).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { cliEnv, mainPath } from './cli.ts';

// Prints every file module loaded, on stderr, as the process exits.
const recordLoads = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => process.stderr.write(JSON.stringify(loaded.filter((url) => url.startsWith('file:')))));
`;

/** The file URLs `devplat help` loads. */
function loadedByHelp(): string[] {
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(recordLoads)}`, mainPath, 'help'],
    { env: cliEnv(), encoding: 'utf8' },
  );
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stderr) as string[];
}

test('devplat help loads nothing from the database package, Prisma, ajv or yaml', () => {
  const loaded = loadedByHelp();
  assert.ok(loaded.some((url) => url.endsWith('/packages/1-foundation/contract/src/catalogue.ts')));
  const heavy = loaded.filter((url) => /\/packages\/db\/|@prisma|\/node_modules\/(\.pnpm\/)?(ajv|yaml)[@/]/.test(url));
  assert.deepEqual(heavy, []);
});

test('the callback page takes the one page template from @devplat/http/html, without the server stack', () => {
  const loaded = loadedByHelp();
  assert.ok(loaded.some((url) => url.endsWith('/packages/2-infrastructure/http/src/html-entry.ts')));
  const server = loaded.filter((url) =>
    /\/packages\/(http\/src\/index|kv\/)|\/node_modules\/(\.pnpm\/)?(koa|@koa[+/]router|pino|ioredis)[@/]/.test(url),
  );
  assert.deepEqual(server, []);
});
