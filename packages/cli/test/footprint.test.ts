// The CLI stays light: it starts on every keystroke of a completion and in scripts, so it loads the
// contract's catalogue and types but neither Prisma nor the contract's OpenAPI validator.
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

test('devplat help loads nothing from the database package, Prisma, ajv or yaml', () => {
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(recordLoads)}`, mainPath, 'help'],
    { env: cliEnv(), encoding: 'utf8' },
  );
  assert.equal(result.status, 0, result.stderr);
  const loaded = JSON.parse(result.stderr) as string[];
  assert.ok(loaded.some((url) => url.endsWith('/packages/contract/src/catalogue.ts')));
  const heavy = loaded.filter((url) => /\/packages\/db\/|@prisma|\/node_modules\/(\.pnpm\/)?(ajv|yaml)[@/]/.test(url));
  assert.deepEqual(heavy, []);
});
