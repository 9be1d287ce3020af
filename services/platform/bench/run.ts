// The benchmarks: each server in its own process, loaded with autocannon after a 2 s warm-up, and
// compared with a bare Koa route in the same run. Uses DATABASE_URL / REDIS_URL when set.
//   npm run bench:token -- [seconds=10] [connections=10]   client_credentials vs a bare signing route
//   npm run bench:api   -- [seconds=10] [connections=50]   /cities and /me vs a bare hello-world
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { Target } from './servers.ts';

const [suite = 'token', secondsArg, connectionsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 10);
const connections = Number(connectionsArg ?? (suite === 'api' ? 50 : 10));
const servers = new URL('./servers.ts', import.meta.url).pathname;

async function startServer(mode: string): Promise<{ child: ChildProcess; target: Target & { me?: Target } }> {
  const child = spawn(process.execPath, [servers, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { child, target: JSON.parse(line) };
}

const load = (target: Target, duration: number) =>
  autocannon({
    url: target.url,
    method: target.method,
    connections,
    duration,
    headers: target.headers,
    body: target.body,
  });

async function measure(name: string, target: Target) {
  await load(target, 2); // warm-up: JIT, pools, caches
  const result = await load(target, seconds);
  const perSecond = result['2xx'] / seconds;
  const line =
    `${name.padEnd(10)} ${perSecond.toFixed(0).padStart(7)} /s   p50 ${String(result.latency.p50).padStart(3)} ms   ` +
    `p90 ${String(result.latency.p90).padStart(3)} ms   p99 ${String(result.latency.p99).padStart(3)} ms   ` +
    `non-2xx ${result.non2xx}   errors ${result.errors}   (${target.backend})`;
  return { perSecond, p99: result.latency.p99, line };
}

async function withServer<T>(mode: string, work: (target: Target & { me?: Target }) => Promise<T>): Promise<T> {
  const { child, target } = await startServer(mode);
  try {
    return await work(target);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
const header = `${connections} connections, ${seconds} s each, after a 2 s warm-up`;

if (suite === 'token') {
  const bare = await withServer('sign', (t) => measure('bare', t));
  const platform = await withServer('token', (t) => measure('platform', t));
  process.stdout.write(
    `client_credentials token issuance, ${header}\n${bare.line}\n${platform.line}\n` +
      `platform / bare: ${percent(platform.perSecond, bare.perSecond)} (target: at least 40%)\n`,
  );
} else if (suite === 'api') {
  const bare = await withServer('hello', (t) => measure('hello', t));
  const [cities, me] = await withServer('api', async (t) => [
    await measure('/cities', t),
    await measure('/me', t.me as Target),
  ]);
  process.stdout.write(
    `resource API, ${header}\n${bare.line}\n${cities?.line}\n${me?.line}\n` +
      `/cities / hello: ${percent(cities?.perSecond ?? 0, bare.perSecond)} (target: at least 50%); ` +
      `p99 /cities ${cities?.p99} ms, /me ${me?.p99} ms (target: under 20 ms)\n`,
  );
} else {
  process.stderr.write('usage: run.ts token|api [seconds] [connections]\n');
  process.exit(2);
}
process.exit(0);
