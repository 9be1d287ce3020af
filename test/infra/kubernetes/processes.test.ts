// The Kubernetes manifests (infra/kubernetes) against the code: each overlay's migrate Job and
// then each Deployment started as a real process (infra/container/service.mjs with the manifest's
// arguments, as the image runs it) with the manifest's environment and its mounted secret files,
// probed on the ports and paths the manifest declares, reached as the Ingresses route, and drained.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { realPostgresUrl } from '@devplat/test/database';
import { sharedSecrets } from '@devplat/test/env';
import {
  bytes,
  containerEnv,
  deployments,
  type KubeObject,
  ofKind,
  overlays,
  portSettings,
  probePort,
  render,
  secretFiles,
  serviceTarget,
  source,
  type Workload,
  workload,
} from '@devplat/test/kubernetes';
import { freePort, repoRoot, type StartedProcess, startProcess } from '@devplat/test/process';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import pg from 'pg';
import { request } from 'undici';
import { operatorToken } from '../../../services/admin/src/create-token.ts';

/** The environment the image itself sets (its last ENV instruction), under the manifest's. */
function imageEnv(): Record<string, string> {
  const containerfile = source('infra/container/Containerfile').replace(/\\\n/g, ' ');
  const line = containerfile.split('\n').findLast((l) => l.startsWith('ENV '));
  assert.ok(line, 'the Containerfile sets an environment');
  return Object.fromEntries([...line.slice(4).matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
}

const redisUrl = process.env.REDIS_URL?.trim() || null;
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';
const run = promisify(execFile);

/** An empty database of this test's own on DATABASE_URL's server: the migrate Job fills it. */
async function emptyDatabase() {
  const name = `devplat_k8s_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: realPostgresUrl as string });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(realPostgresUrl as string);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

interface Pod {
  workload: Workload;
  /** The manifest's container port → the local port the process listens on here instead. */
  ports: Map<number, number>;
  env: Record<string, string>;
}

/**
 * The process environment of a workload: the image's, then the manifest's, with only what a
 * machine without a cluster needs rewritten: HOST (and ADMIN_HOST) to 127.0.0.1, each declared container port to a
 * free local one, the Service in AUTH_INTERNAL_URL to the auth process, secret files to a temp
 * dir holding the test's real values, and a fresh REDIS_KEY_PREFIX.
 */
async function podFor(
  objects: KubeObject[],
  w: Workload,
  context: { dir: string; values: Record<string, string>; prefix: string; pods: Map<string, Pod> },
): Promise<Pod> {
  const manifestEnv = containerEnv(objects, w.container);
  const ports = new Map<number, number>();
  for (const port of w.container.ports ?? []) ports.set(port.containerPort, await freePort());
  const env: Record<string, string> = {
    ...imageEnv(),
    PATH: process.env.PATH ?? '',
    ...Object.fromEntries(manifestEnv),
  };
  env.HOST = '127.0.0.1';
  if (env.ADMIN_HOST !== undefined) env.ADMIN_HOST = '127.0.0.1';
  if (env.REDIS_KEY_PREFIX !== undefined) env.REDIS_KEY_PREFIX = context.prefix;
  for (const setting of [...portSettings, 'ADMIN_PORT']) {
    if (env[setting] === undefined) continue;
    const local = ports.get(Number(env[setting]));
    assert.ok(local, `${w.name}: ${setting}=${env[setting]} is not a declared container port`);
    env[setting] = String(local);
  }
  if (env.AUTH_INTERNAL_URL !== undefined && w.name === 'api') {
    const url = new URL(env.AUTH_INTERNAL_URL);
    const target = serviceTarget(objects, url.hostname.split('.')[0] ?? '', { number: Number(url.port) });
    const auth = context.pods.get(target.workload.name);
    assert.ok(auth, `${w.name}: ${url.host} is served by ${target.workload.name}, which must start first`);
    env.AUTH_INTERNAL_URL = `http://127.0.0.1:${auth.ports.get(target.containerPort.number)}`;
  }
  for (const file of secretFiles(w, manifestEnv)) {
    const value = context.values[file.setting];
    assert.ok(value, `${w.name}: no test value for ${file.setting}`);
    const path = join(context.dir, w.name, file.volume, file.file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, value, { mode: 0o600 });
    env[`${file.setting}_FILE`] = path;
  }
  return { workload: w, ports, env };
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await request(url, { headers });
  return { status: response.statusCode, body: await response.body.text() };
}

/** Polls a probe as the kubelet would, until it answers 200 or `withinMs` passes. */
async function probeAnswer(pod: Pod, probe: { number: number; path: string }, withinMs: number) {
  const url = `http://127.0.0.1:${pod.ports.get(probe.number)}${probe.path}`;
  const deadline = Date.now() + withinMs;
  for (;;) {
    const answer = await get(url).catch((error: Error) => ({ status: 0, body: error.message }));
    if (answer.status === 200 || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function residentMemory(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

describe('Kubernetes manifests against the code', { skip }, () => {
  for (const overlay of overlays) {
    test(`${overlay}: the migrate Job, then every Deployment run as the manifests say, answer /livez and /readyz 200 on their management ports, route as the Ingresses say, and drain to exit 0`, {
      timeout: 120_000,
    }, async (t) => {
      const objects = render(overlay);
      const database = await emptyDatabase();
      const dir = mkdtempSync(join(tmpdir(), 'devplat-k8s-'));
      const started: StartedProcess[] = [];
      t.after(async () => {
        await Promise.all(started.map((p) => p.stop()));
        rmSync(dir, { recursive: true, force: true });
        await database.drop();
      });
      const pods = new Map<string, Pod>();
      // An operator token and the tokens file line that admits it, as admin create-token makes them.
      const operator = operatorToken('ops-k8s', 'read');
      const context = {
        dir,
        values: {
          ...sharedSecrets,
          DATABASE_URL: database.url,
          REDIS_URL: redisUrl as string,
          ADMIN_TOKENS: `# operators\n${operator.line}\n`,
        },
        prefix: `devplat-test:k8s:${randomUUID()}:`,
        pods,
      };
      const oneShot = async (name: string) => {
        const w = workload(objects, name);
        const pod = await podFor(objects, w, context);
        const script = join(repoRoot, 'infra/container/service.mjs');
        const result = await run(process.execPath, [script, ...(w.container.args ?? [])], {
          cwd: repoRoot,
          env: pod.env,
        }).catch((error: { code?: number; stdout?: string; stderr?: string }) =>
          assert.fail(`${name} exited ${error.code}:\n${error.stdout}${error.stderr}`),
        );
        return result.stdout;
      };

      // The Job first: every service's readiness checks the schema it applies.
      assert.match(await oneShot('migrate'), /^applied \d{14}_/m);

      const start = async (w: Workload) => {
        const pod = await podFor(objects, w, context);
        const child = await startProcess(
          process.execPath,
          ['infra/container/service.mjs', ...(w.container.args ?? [])],
          pod.env,
          /management: http:\/\/\S+/,
        );
        started.push(child);
        pods.set(w.name, pod);
        return { pod, child };
      };
      // auth first: the api's readiness includes auth's JWKS, at the auth-internal Service.
      const services = deployments(objects);
      const running = [await start(services.find((w) => w.name === 'auth') as Workload)];
      running.push(...(await Promise.all(services.filter((w) => w.name !== 'auth').map(start))));
      assert.deepEqual(
        running.map((r) => r.pod.workload.name).sort(),
        overlay === 'production'
          ? ['admin-api', 'api', 'auth', 'worker']
          : ['admin-api', 'api', 'auth', 'console', 'worker'],
      );

      for (const { pod, child } of running) {
        const { container } = pod.workload;
        const where = `${overlay}: ${pod.workload.name}`;
        const startup = await probeAnswer(
          pod,
          probePort(objects, pod.workload, container.startupProbe, 'startupProbe'),
          0,
        );
        assert.equal(startup.status, 200, `${where}: startupProbe ${startup.body}`);
        const live = await probeAnswer(
          pod,
          probePort(objects, pod.workload, container.livenessProbe, 'livenessProbe'),
          0,
        );
        assert.deepEqual([live.status, JSON.parse(live.body)], [200, { status: 'alive' }], where);
        const ready = await probeAnswer(
          pod,
          probePort(objects, pod.workload, container.readinessProbe, 'readinessProbe'),
          15_000,
        );
        assert.equal(ready.status, 200, `${where}: readinessProbe ${ready.body}`);
        assert.equal(JSON.parse(ready.body).status, 'ready', where);
        const memory = residentMemory(child.child.pid);
        t.diagnostic(
          `${where}: ready, peak resident memory ${Math.round(memory / 2 ** 20)} MiB (request ${container.resources?.requests?.memory})`,
        );
        assert.ok(memory < bytes(container.resources?.requests?.memory), `${where}: starts within its memory request`);
      }

      // Requests as the Ingresses send them: the backend Service, to the process behind it.
      const settings = Object.fromEntries(containerEnv(objects, workload(objects, 'auth').container));
      const ingressPaths = ofKind<IIngress>(objects, 'Ingress').flatMap((i) =>
        (i.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((path) => ({ host: r.host, path }))),
      );
      const through = async (url: string) => {
        const { host, pathname } = new URL(url);
        const paths = ingressPaths.filter((p) => p.host === host).map((p) => p.path);
        const matches = paths.filter((p) =>
          p.pathType === 'Exact'
            ? pathname === p.path
            : `${pathname}/`.startsWith(p.path?.endsWith('/') ? (p.path as string) : `${p.path}/`),
        );
        const route = matches.sort((a, b) => (b.path?.length ?? 0) - (a.path?.length ?? 0))[0];
        assert.ok(route?.backend.service, `${overlay}: an Ingress routes ${url}`);
        const target = serviceTarget(objects, route.backend.service.name, {
          name: route.backend.service.port?.name,
          number: route.backend.service.port?.number,
        });
        const local = pods.get(target.workload.name)?.ports.get(target.containerPort.number);
        return get(`http://127.0.0.1:${local}${pathname}`, {
          host,
          'x-forwarded-proto': 'https',
          'x-forwarded-host': host,
          'x-forwarded-for': '203.0.113.7',
        });
      };
      const platformOn = settings.DEVELOPER_PLATFORM_ENABLED === 'true';
      for (const path of [
        '/developer/v1/.well-known/oauth-authorization-server',
        '/.well-known/oauth-authorization-server/developer/v1',
      ]) {
        const metadata = await through(new URL(path, settings.BASE_URL).href);
        if (platformOn) {
          assert.equal(metadata.status, 200, `${overlay}: ${path} ${metadata.body}`);
          assert.equal(JSON.parse(metadata.body).issuer, settings.BASE_URL, `${overlay}: the issuer is BASE_URL`);
        } else {
          assert.equal(metadata.status, 503, `${overlay}: ${path} while the platform switch is off`);
          assert.equal(JSON.parse(metadata.body).code, 'FEATURE_DISABLED');
        }
      }
      const capabilities = await through(`${settings.BASE_URL}/capabilities`);
      assert.equal(capabilities.status, 200, `${overlay}: /capabilities through the Ingress ${capabilities.body}`);
      const { environment, capabilities: flags } = JSON.parse(capabilities.body);
      assert.deepEqual(
        [environment, flags.oauth_client_credentials, flags.developer_console],
        [settings.DEVELOPER_PLATFORM_ENVIRONMENT, platformOn, overlay === 'sandbox'],
        `${overlay}: the api runs in the manifest's environment, with its platform switch`,
      );
      const signIn = await through(`${settings.PLAYER_CLIENT_URL}/signin`);
      assert.equal(signIn.status, 200, `${overlay}: the player client's sign-in page on its host`);
      assert.match(signIn.body, /<title>Sign in<\/title>/);
      if (overlay === 'sandbox') {
        const consolePage = await through(`${settings.CONSOLE_URL}/signin`);
        assert.equal(consolePage.status, 200, `${overlay}: the console's sign-in page on its host`);
        assert.match(consolePage.body, /<title>Sign in · Developer console<\/title>/);
      }

      // The admin API through its ClusterIP Service (no Ingress has it), with the mounted tokens file.
      const adminService = serviceTarget(objects, 'admin-api', { name: 'admin' });
      const adminUrl = `http://127.0.0.1:${pods.get('admin-api')?.ports.get(adminService.containerPort.number)}`;
      const path = '/admin/v1/accounts/nobody@example.test';
      const refused = await get(`${adminUrl}${path}`);
      assert.deepEqual([refused.status, JSON.parse(refused.body).code], [401, 'INVALID_TOKEN'], overlay);
      const asked = await get(`${adminUrl}${path}`, { authorization: `Bearer ${operator.token}` });
      assert.deepEqual([asked.status, JSON.parse(asked.body).code], [404, 'NOT_FOUND'], `${overlay}: ${asked.body}`);

      const janitor = await oneShot('janitor');
      assert.match(janitor, /^revoked-tokens: \d+ deleted/m, `${overlay}: the janitor's run:\n${janitor}`);

      // The drain: /readyz turns 503 at once (where SHUTDOWN_DELAY_MS gives it time to be seen),
      // and every process exits 0 within the pod's terminationGracePeriodSeconds.
      await Promise.all(
        running.map(async ({ pod, child }) => {
          const where = `${overlay}: ${pod.workload.name}`;
          const since = Date.now();
          const exited = child.stop();
          if (Number(pod.env.SHUTDOWN_DELAY_MS) > 0) {
            await new Promise((resolve) => setTimeout(resolve, 300));
            const readiness = probePort(objects, pod.workload, pod.workload.container.readinessProbe, 'readinessProbe');
            const draining = await get(`http://127.0.0.1:${pod.ports.get(readiness.number)}${readiness.path}`);
            assert.deepEqual([draining.status, JSON.parse(draining.body).status], [503, 'draining'], where);
          }
          assert.equal(await exited, 0, `${where} drained to exit 0:\n${child.output()}`);
          const grace = pod.workload.spec.terminationGracePeriodSeconds ?? 30;
          assert.ok(Date.now() - since < grace * 1000, `${where} drained within ${grace} s`);
        }),
      );
    });
  }
});
