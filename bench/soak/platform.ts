// The soak's platform: its Redis topology, a fault proxy in front of PostgreSQL (the topology's
// only way to it), a database of its own (created fresh, dropped after), the split topology on
// both, a webhook receiver, and through the console: a developer, the app (with the receiver as
// its webhook endpoint) and one sandbox player per refresh chain.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigningKey, type SigningKey } from '@devplat/config';
import { type FaultProxy, startFaultProxy } from '@devplat/test/fault-proxy';
import { consoleSetup } from '@devplat/test/topology';
import { startWebhookReceiver, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import { dropDatabase, prepareDatabase, startTopology, type Topology } from '@devplat/topology';
import type { LoadTarget } from './load.ts';
import type { Random } from './random.ts';
import { type RedisMode, type SoakRedis, startSoakRedis } from './redis.ts';

const serverUrl = process.env.DATABASE_URL?.trim() || 'postgresql://postgres@127.0.0.1:5432/postgres';
const database = process.env.SOAK_DATABASE ?? 'devplat_soak';

export interface SoakPlatform {
  topology: Topology;
  redis: SoakRedis;
  postgres: FaultProxy;
  receiver: WebhookReceiver;
  target: LoadTarget & { signingSecret: string };
  /** The signing key the topology started with (the rotation publishes a new one beside it). */
  signingKey: SigningKey;
  /** Where the processes' lines and the gateway's access log are kept after the run. */
  logDir: string;
  stop(): Promise<void>;
}

export async function startSoakPlatform(mode: RedisMode, chains: number, random: Random): Promise<SoakPlatform> {
  const runtimeDir = mkdtempSync(join(tmpdir(), 'devplat-soak-'));
  const logDir = mkdtempSync(join(tmpdir(), 'devplat-soak-logs-'));
  const logs: string[] = [];
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(runtimeDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const redis = await startSoakRedis(mode, random);
    cleanups.push(() => redis.stop());
    const target = new URL(serverUrl);
    const postgres = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    cleanups.push(() => postgres.close());
    await dropDatabase(serverUrl, database);
    const databaseUrl = await prepareDatabase(serverUrl, database);
    cleanups.push(() => dropDatabase(serverUrl, database));
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    const signingKey = generateSigningKey();
    const topology = await startTopology({
      databaseUrl: postgres.proxied(databaseUrl),
      // Only its database index counts beside REDIS_SENTINELS / REDIS_CLUSTER_NODES.
      redisUrl: 'redis://127.0.0.1:6379/0',
      secrets: {
        SIGNING_KEYS: JSON.stringify({ keys: [signingKey] }),
        PAIRWISE_SECRET: randomBytes(32).toString('base64url'),
        COOKIE_KEYS: randomBytes(32).toString('base64url'),
      },
      runtimeDir,
      env: {
        ...redis.env,
        SHUTDOWN_DELAY_MS: '1500',
        WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
        WEBHOOK_POLL_MS: '200',
        WEBHOOK_BACKOFF_BASE_MS: '200',
      },
      log: (line) => logs.push(line),
    });
    cleanups.push(async () => {
      await topology.stop();
      writeFileSync(join(logDir, 'processes.log'), `${logs.join('\n')}\n`);
      const accessLog = join(runtimeDir, 'access.log');
      if (existsSync(accessLog)) copyFileSync(accessLog, join(logDir, 'access.log'));
    });
    const consoleOrigin = topology.urls.Console;
    const { developer, app, players } = await consoleSetup(
      { console: consoleOrigin },
      { webhookUrl: receiver.url, players: chains },
    );
    const [redirectUri] = app.app.redirectUris as [string];
    return {
      topology,
      redis,
      postgres,
      receiver,
      signingKey,
      logDir,
      target: {
        base: topology.urls['Public API'],
        console: consoleOrigin,
        app: { clientId: app.clientId, clientSecret: app.clientSecret, redirectUri },
        signingSecret: app.signingSecret,
        developerToken: developer.token,
        players,
      },
      stop,
    };
  } catch (error) {
    if (logs.length) process.stderr.write(`${logs.slice(-40).join('\n')}\n`);
    await stop();
    throw error;
  }
}
