// The container image's build (infra/container/build.sh), started by test/run.mjs as the run begins,
// so its downloads and its Debian stand-in overlap the first test files instead of holding one of
// the two lanes for minutes; test/infra/container-image.test.ts then waits for its result. Run on
// its own, that file builds the image itself, as before.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const repoRoot = new URL('../..', import.meta.url).pathname;

/** The image the test builds and runs. */
export const imageTag = 'devplat:test';

/** How the test and the early build both run build.sh: CONTAINERS_CONF, and the machine's CAs. */
export function buildEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...env,
    CONTAINERS_CONF: join(repoRoot, 'infra/container/containers.conf'),
    NODE_EXTRA_CA_CERTS: env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt',
  };
}

/**
 * Starts build.sh in the background; its stderr goes to `<dir>/stderr` and, when it ends, its exit
 * code and seconds to `<dir>/done` (written by the shell, as the runner's own loop is blocked in
 * the test run). Returns the directory, for DEVPLAT_IMAGE_BUILD.
 */
export function startImageBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'devplat-image-build-'));
  const script =
    'started=$(date +%s); infra/container/build.sh "$1" 2>"$2/stderr" >/dev/null; echo "$? $(( $(date +%s) - started ))" >"$2/done"';
  const child = spawn('bash', ['-c', script, 'build', imageTag, dir], {
    cwd: repoRoot,
    env: buildEnv(),
    stdio: 'ignore',
    detached: true,
  });
  child.unref();
  return dir;
}

export interface ImageBuild {
  code: number;
  seconds: number;
  stderr: string;
}

/** Waits (bounded) for the build started in `dir` to end; its exit code, seconds and stderr. */
export async function awaitImageBuild(dir: string, timeoutMs: number): Promise<ImageBuild> {
  const done = join(dir, 'done');
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(done)) {
    if (Date.now() > deadline) throw new Error(`the image build in ${dir} did not end within ${timeoutMs} ms`);
    await sleep(500);
  }
  const [code, seconds] = readFileSync(done, 'utf8').trim().split(' ').map(Number);
  return { code: code as number, seconds: seconds as number, stderr: readFileSync(join(dir, 'stderr'), 'utf8') };
}
