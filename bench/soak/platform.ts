// The soak's platform: its Redis topology, its PostgreSQL behind one address (postgres.ts), the
// split topology on both (two replicas of every service), a webhook receiver, an operator token
// for the admin API, and through the console: a developer, the app (with the receiver as its
// webhook endpoint), one sandbox player per refresh chain, and a second app whose suspension and
// secrets the acknowledged-writes loop changes.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigningKey, type SigningKey } from '@devplat/config';
import { newKey, operatorTokenPrefix } from '@devplat/keys';
import { operatorTokensFile } from '@devplat/test/admin-api';
import { consoleSetup } from '@devplat/test/topology';
import { startWebhookReceiver, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import { startTopology, type Topology } from '@devplat/topology';
import type { LoadTarget } from './load.ts';
import { type PostgresMode, type SoakPostgres, startSoakPostgres } from './postgres.ts';
import type { Random } from './random.ts';
import { type RedisMode, type SoakRedis, startSoakRedis } from './redis.ts';

const database = process.env.SOAK_DATABASE ?? 'devplat_soak';

export interface SoakPlatform {
  topology: Topology;
  redis: SoakRedis;
  postgres: SoakPostgres;
  receiver: WebhookReceiver;
  target: LoadTarget & { signingSecret: string };
  /** The signing key the topology started with (the rotation publishes a new one beside it). */
  signingKey: SigningKey;
  /** Where the processes' lines and the gateway's access log are kept after the run. */
  logDir: string;
  stop(): Promise<void>;
}

export async function startSoakPlatform(
  modes: { redis: RedisMode; postgres: PostgresMode },
  chains: number,
  random: Random,
): Promise<SoakPlatform> {
  const runtimeDir = mkdtempSync(join(tmpdir(), 'devplat-soak-'));
  const logDir = mkdtempSync(join(tmpdir(), 'devplat-soak-logs-'));
  const logs: string[] = [];
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(runtimeDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const redis = await startSoakRedis(modes.redis, random);
    cleanups.push(() => redis.stop());
    const postgres = await startSoakPostgres(modes.postgres, database);
    cleanups.push(() => postgres.stop());
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    const signingKey = generateSigningKey();
    const adminToken = newKey(operatorTokenPrefix);
    operatorTokensFile(join(runtimeDir, 'admin-tokens')).add('soak', 'write', adminToken);
    const topology = await startTopology({
      databaseUrl: postgres.databaseUrl,
      // The recommended shape: two of every service, so a replica's death costs nothing.
      replicas: { console: 2 },
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
    const { developer, app, players, api } = await consoleSetup(
      { console: consoleOrigin },
      { webhookUrl: receiver.url, players: chains },
    );
    const [redirectUri] = app.app.redirectUris as [string];
    const second = await api('POST', '/apps', {
      name: 'Soak Writes',
      redirect_uris: [redirectUri],
      scopes: ['city.public.read'],
    });
    if (second.status !== 201) throw new Error(`the second app could not be created: ${second.text}`);
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
        admin: { url: topology.urls['Admin API'], token: adminToken },
        writes: {
          clientId: second.json.app.client_id,
          clientSecret: second.json.client_secret,
          secretId: second.json.app.secrets[0].secret_id,
        },
      },
      stop,
    };
  } catch (error) {
    if (logs.length) process.stderr.write(`${logs.slice(-40).join('\n')}\n`);
    await stop();
    throw error;
  }
}
