// npm run bench:token: client_credentials tokens per second and latency percentiles on the
// platform's token endpoint, beside a bare Koa route that signs an equal Ed25519 JWT, in the same
// run, with the same load. Uses DATABASE_URL / REDIS_URL when set, the embedded defaults otherwise.
//   npm run bench:token -- [seconds=10] [connections=10]
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 10);
const servers = new URL('./servers.ts', import.meta.url).pathname;

interface Target {
  url: string;
  authorization: string;
  body: string;
  backend: string;
}

async function startServer(mode: string): Promise<{ child: ChildProcess; target: Target }> {
  const child = spawn(process.execPath, [servers, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { child, target: JSON.parse(line) as Target };
}

async function load(target: Target, duration: number) {
  return autocannon({
    url: target.url,
    method: 'POST',
    connections,
    duration,
    headers: { authorization: target.authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body: target.body,
  });
}

const rows: string[] = [];
const results: Record<string, number> = {};
for (const mode of ['bare', 'platform']) {
  const { child, target } = await startServer(mode);
  try {
    await load(target, 2); // warm-up: JIT, connection pools
    const result = await load(target, seconds);
    const ok = result['2xx'];
    const tokensPerSecond = ok / seconds;
    results[mode] = tokensPerSecond;
    rows.push(
      `${mode.padEnd(9)} ${tokensPerSecond.toFixed(0).padStart(8)} tokens/s   p50 ${String(result.latency.p50).padStart(4)} ms   ` +
        `p90 ${String(result.latency.p90).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms   ` +
        `non-2xx ${result.non2xx}   errors ${result.errors}   (${target.backend})`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
process.stdout.write(
  `client_credentials token issuance, ${connections} connections, ${seconds} s each, after a 2 s warm-up\n` +
    `${rows.join('\n')}\nplatform / bare: ${((100 * (results.platform ?? 0)) / (results.bare ?? 1)).toFixed(1)}% (target: at least 40%)\n`,
);
process.exit(0);
