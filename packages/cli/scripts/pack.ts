// npm run cli:pack [-- <directory>]: the devplat CLI as an npm package that runs outside a
// checkout. The sources (TypeScript, and the workspace packages they import) are bundled by esbuild
// into one JavaScript file, so the tarball holds no .ts, depends on nothing and needs no registry:
//   npm install -g ./devplat-<version>.tgz     then     devplat help
// Writes the tarball into <directory> (default .data/cli) and prints its path.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { version } from '../src/version.ts';

const cliRoot = new URL('..', import.meta.url).pathname;
const destination = resolve(process.argv[2] ?? join(cliRoot, '../../.data/cli'));
const staging = mkdtempSync(join(tmpdir(), 'devplat-pack-'));
try {
  await build({
    entryPoints: [join(cliRoot, 'src/main.ts')],
    outfile: join(staging, 'dist/devplat.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  });
  const manifest = {
    name: 'devplat',
    version,
    description: "The Developer Platform's command line: sandbox apps, secrets, players, webhooks, tokens",
    type: 'module',
    bin: { devplat: 'dist/devplat.mjs' },
    files: ['dist'],
    engines: { node: '>=24' },
    license: 'UNLICENSED',
  };
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    join(staging, 'README.md'),
    `# devplat ${version}\n\nThe Developer Platform's command line. \`devplat help\` lists every command; ` +
      '`devplat login --email you@example.com` starts a session with the developer console ' +
      '(`--console-url` or `DEVPLAT_CONSOLE_URL` picks which). Needs Node 24.\n',
  );
  mkdirSync(destination, { recursive: true });
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', destination], {
    cwd: staging,
    encoding: 'utf8',
  }).trim();
  process.stdout.write(`${join(destination, packed)}\n`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
