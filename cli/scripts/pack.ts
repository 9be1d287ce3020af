// npm run cli:pack [-- <directory>]: the devplat CLI as an npm package that runs outside a
// checkout, on Node 20, 22 or 24. The sources (TypeScript, and the workspace packages they import)
// are bundled by esbuild into one JavaScript file for Node 20, so the tarball holds no .ts, depends
// on nothing and needs no registry:
//   npm install -g ./devplat-<version>.tgz     then     devplat help
// Writes the tarball into <directory> (default .data/cli, which the console serves at
// /downloads; npm start builds it there) and prints its path.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { version } from '../src/version.ts';

const cliRoot = new URL('..', import.meta.url).pathname;
export const defaultCliDir = join(cliRoot, '../.data/cli');

/** The oldest Node the package runs on: esbuild lowers syntax to it; the APIs are the sources' care. */
export const oldestNode = '20';

const readme = `# devplat ${version}

The Developer Platform's command line: sandbox apps, secrets, players, webhooks and tokens, from
a terminal. Needs Node 20 or newer (20, 22 and 24 are tested); it depends on no other package.

    npm install -g ./devplat-${version}.tgz
    devplat --version
    devplat help

\`devplat login --email you@example.com\` starts a session with the developer console
(\`--console-url\` or \`DEVPLAT_CONSOLE_URL\` picks which one).

Shell completions (commands, options, scopes):

    source <(devplat completion bash)       # add this line to ~/.bashrc to keep it
    source <(devplat completion zsh)        # add this line to ~/.zshrc to keep it

Uninstall with \`npm uninstall -g devplat\`; upgrade by installing a newer tarball the same way.
`;

/** Bundles the CLI, packs it with npm and returns the tarball's path (`<destination>/devplat-<version>.tgz`). */
export async function packCli(destination: string = defaultCliDir): Promise<string> {
  const staging = mkdtempSync(join(tmpdir(), 'devplat-pack-'));
  try {
    await build({
      entryPoints: [join(cliRoot, 'src/main.ts')],
      outfile: join(staging, 'dist/devplat.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: `node${oldestNode}`,
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
      engines: { node: `>=${oldestNode}` },
      license: 'UNLICENSED',
    };
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(staging, 'README.md'), readme);
    const out = resolve(destination);
    mkdirSync(out, { recursive: true });
    const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], {
      cwd: staging,
      encoding: 'utf8',
    }).trim();
    return join(out, packed);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (import.meta.main) process.stdout.write(`${await packCli(process.argv[2])}\n`);
