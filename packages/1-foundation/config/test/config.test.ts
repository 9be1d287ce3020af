import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { productionEnv, sharedSecrets } from '@devplat/test/env';
import {
  ConfigError,
  cookieHosts,
  listenHost,
  loadConfig,
  loadConfigWithoutSecrets,
  loadStoreSettings,
} from '../src/index.ts';

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

describe('configuration', () => {
  test('embedded defaults', () => {
    const config = loadConfig({});
    assert.equal(config.environment, 'sandbox');
    assert.equal(config.platformEnabled, true);
    assert.equal(config.baseUrl.href, 'http://127.0.0.1:8080/developer/v1');
    assert.equal(config.playerClientUrl.origin, 'http://127.0.0.2:8081');
    assert.equal(config.consoleUrl.origin, 'http://127.0.0.3:8082');
    assert.equal(config.statusUrl, null);
    assert.equal(config.databaseUrl, null);
    assert.equal(config.redisUrl, null);
  });

  test('the player client and console get loopback hosts of their own, and listen there', () => {
    const config = loadConfig({});
    assert.deepEqual(cookieHosts(config), ['127.0.0.2', '127.0.0.3']);
    assert.equal(listenHost(config, config.playerClientUrl), '127.0.0.2');
    assert.equal(listenHost(config, config.consoleUrl), '127.0.0.3');
    assert.equal(listenHost(config, config.baseUrl), '127.0.0.1');
    assert.equal(
      listenHost(loadConfig({ PLAYER_CLIENT_URL: 'http://play.test:8081' }), new URL('http://play.test')),
      '127.0.0.1',
    );
    const everywhere = loadConfig({ HOST: '0.0.0.0' });
    assert.equal(listenHost(everywhere, everywhere.playerClientUrl), '0.0.0.0');
    assert.deepEqual(cookieHosts(loadConfig(productionEnv)), ['play.example.test', 'console.example.test']);
  });

  test('the shared secrets: required of auth and the platform; optional, shape-checked, for every other service', () => {
    const shared = { REDIS_URL: 'redis://127.0.0.1:6379' };
    assert.throws(() => loadConfig(shared), { variable: 'SIGNING_KEYS' });
    assert.throws(() => loadConfig({ ...productionEnv, COOKIE_KEYS: '' }), { variable: 'COOKIE_KEYS' });
    const api = loadConfigWithoutSecrets({
      ...productionEnv,
      SIGNING_KEYS: '',
      PAIRWISE_SECRET: '',
      COOKIE_KEYS: '',
      REDIS_URL: '',
    });
    assert.deepEqual(api.secretSettings, { signingKeys: null, pairwiseSecret: null, cookieKeys: null });
    assert.equal(api.redisUrl, null, 'the api and the worker use no Redis');
    assert.throws(() => loadConfigWithoutSecrets({ ...shared, PAIRWISE_SECRET: 'short' }), {
      variable: 'PAIRWISE_SECRET',
    });
  });

  test('TRUSTED_PROXIES: addresses and CIDR ranges, each checked', () => {
    assert.equal(loadConfig({}).trustedProxies, null);
    assert.deepEqual(loadConfig({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,fd00::/8' }).trustedProxies, [
      '127.0.0.1',
      '10.0.0.0/8',
      'fd00::/8',
    ]);
    for (const bad of ['gateway.internal', '10.0.0.0/33', '10.0.0.1/8/1', '127.0.0.1,']) {
      assert.throws(() => loadConfig({ TRUSTED_PROXIES: bad }), {
        variable: 'TRUSTED_PROXIES',
        message: /IP addresses or CIDR ranges/,
      });
    }
  });

  test('the platform is off in production unless DEVELOPER_PLATFORM_ENABLED is set', () => {
    assert.equal(loadConfig(productionEnv).platformEnabled, false);
    const on = loadConfig({
      ...productionEnv,
      DEVELOPER_PLATFORM_ENVIRONMENT: 'production',
      DEVELOPER_PLATFORM_ENABLED: 'true',
    });
    assert.equal(on.platformEnabled, true);
    assert.equal(loadConfig({ DEVELOPER_PLATFORM_ENVIRONMENT: 'staging' }).platformEnabled, true);
    assert.equal(loadConfig({ DEVELOPER_PLATFORM_ENABLED: 'off' }).platformEnabled, false);
  });

  test("the stores' timeouts: defaults well under the 30 s request timeout, and set in milliseconds", () => {
    const defaults = loadConfig({});
    assert.equal(defaults.databaseTimeoutMs, 3_000);
    assert.equal(defaults.redisTimeoutMs, 2_000);
    const set = loadConfig({ DATABASE_TIMEOUT_MS: '500', REDIS_TIMEOUT_MS: '250' });
    assert.equal(set.databaseTimeoutMs, 500);
    assert.equal(set.redisTimeoutMs, 250);
  });

  test('Redis: one server by default; Sentinel or Cluster from their addresses, waiting on a replica by default', () => {
    const single = loadStoreSettings({ REDIS_URL: 'redis://127.0.0.1:6379' });
    assert.deepEqual(single.redisTopology, { mode: 'single' });
    assert.equal(single.redisWaitReplicas, 0);
    const sentinel = loadStoreSettings({
      REDIS_SENTINELS: 'sentinel-0.redis:26379, 10.0.0.7:26379,[fd00::7]:26380',
      REDIS_SENTINEL_MASTER: 'devplat',
    });
    assert.deepEqual(sentinel.redisTopology, {
      mode: 'sentinel',
      sentinels: [
        { host: 'sentinel-0.redis', port: 26379 },
        { host: '10.0.0.7', port: 26379 },
        { host: 'fd00::7', port: 26380 },
      ],
      masterName: 'devplat',
    });
    assert.equal(sentinel.redisWaitReplicas, 1);
    assert.equal(sentinel.redisUrl, 'redis://', 'REDIS_URL may be left out: it only carries credentials');
    const cluster = loadStoreSettings({
      REDIS_URL: 'rediss://:secret@ignored',
      REDIS_CLUSTER_NODES: 'redis-0:6379,redis-1:6379',
      REDIS_WAIT_REPLICAS: '0',
    });
    assert.deepEqual(cluster.redisTopology, {
      mode: 'cluster',
      nodes: [
        { host: 'redis-0', port: 6379 },
        { host: 'redis-1', port: 6379 },
      ],
    });
    assert.equal(cluster.redisWaitReplicas, 0);
    assert.equal(cluster.redisUrl, 'rediss://:secret@ignored');
  });

  test('a trailing slash on BASE_URL is tolerated', () => {
    assert.equal(
      loadConfig({ BASE_URL: 'http://localhost:9000/developer/v1/' }).baseUrl.href,
      'http://localhost:9000/developer/v1',
    );
  });

  const bad: [Record<string, string>, string, RegExp][] = [
    [
      { DEVELOPER_PLATFORM_ENVIRONMENT: 'prod' },
      'DEVELOPER_PLATFORM_ENVIRONMENT',
      /one of sandbox, staging, production/,
    ],
    [{ DEVELOPER_PLATFORM_ENABLED: 'maybe' }, 'DEVELOPER_PLATFORM_ENABLED', /one of/],
    [{ BASE_URL: 'not a url' }, 'BASE_URL', /absolute/],
    [{ BASE_URL: 'http://127.0.0.1:8080/api' }, 'BASE_URL', /\/developer\/v1/],
    [{ BASE_URL: 'ftp://127.0.0.1/developer/v1' }, 'BASE_URL', /http/],
    [{ PLAYER_CLIENT_URL: 'http://127.0.0.2:8081/play' }, 'PLAYER_CLIENT_URL', /origin/],
    [{ CONSOLE_URL: 'http://user:pw@127.0.0.3:8082' }, 'CONSOLE_URL', /credentials/],
    // Apps' redirect URIs may use these hosts on any port; cookies do not separate ports.
    [
      { PLAYER_CLIENT_URL: 'http://127.0.0.1:8081' },
      'PLAYER_CLIENT_URL',
      /must not be on 127\.0\.0\.1, \[::1\], localhost/,
    ],
    [{ PLAYER_CLIENT_URL: 'http://localhost:8081' }, 'PLAYER_CLIENT_URL', /cookies/],
    [{ CONSOLE_URL: 'http://[::1]:8082' }, 'CONSOLE_URL', /cookies/],
    [{ CONSOLE_URL: 'http://localhost.:8082' }, 'CONSOLE_URL', /cookies/],
    [{ STATUS_URL: 'status.example' }, 'STATUS_URL', /absolute/],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL', /postgres/],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL', /redis/],
    [{ PORT: '70000' }, 'PORT', /1 to 65535/],
    [{ DATABASE_TIMEOUT_MS: '3s' }, 'DATABASE_TIMEOUT_MS', /integer from 50 to 20000/],
    [{ DATABASE_TIMEOUT_MS: '30000' }, 'DATABASE_TIMEOUT_MS', /integer from 50 to 20000/],
    [{ REDIS_TIMEOUT_MS: '0' }, 'REDIS_TIMEOUT_MS', /integer from 50 to 20000/],
    [{ REDIS_SENTINELS: 'a:26379' }, 'REDIS_SENTINEL_MASTER', /required with REDIS_SENTINELS/],
    [{ REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINELS', /required with REDIS_SENTINEL_MASTER/],
    [{ REDIS_SENTINELS: 'a', REDIS_SENTINEL_MASTER: 'm' }, 'REDIS_SENTINELS', /host:port/],
    [{ REDIS_CLUSTER_NODES: 'a:6379,b:0' }, 'REDIS_CLUSTER_NODES', /host:port/],
    [{ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2' }, 'REDIS_SENTINELS', /two topologies/],
    [{ REDIS_WAIT_REPLICAS: '-1' }, 'REDIS_WAIT_REPLICAS', /integer from 0 to 10/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of/],
    [{ PAIRWISE_SECRET: 'short' }, 'PAIRWISE_SECRET', /32/],
    [{ COOKIE_KEYS: `${'k'.repeat(32)},short` }, 'COOKIE_KEYS', /32/],
    [{ SIGNING_KEYS: '{' }, 'SIGNING_KEYS', /JSON Web Key Set/],
    [{ SIGNING_KEYS: '{"keys":[{"kty":"RSA","kid":"a"}]}' }, 'SIGNING_KEYS', /Ed25519/],
    [
      {
        ...productionEnv,
        DEVELOPER_PLATFORM_ENVIRONMENT: 'production',
        BASE_URL: 'http://api.example.test/developer/v1',
      },
      'BASE_URL',
      /https/,
    ],
  ];
  for (const [env, variable, message] of bad) {
    test(`refuses ${JSON.stringify(env).slice(0, 70)}, naming ${variable}`, () => {
      const error = refusal(env);
      assert.equal(error.variable, variable);
      assert.match(error.message, new RegExp(`^${variable} `));
      assert.match(error.message, message);
    });
  }

  for (const variable of ['SIGNING_KEYS', 'PAIRWISE_SECRET', 'COOKIE_KEYS', 'DATABASE_URL', 'REDIS_URL']) {
    test(`${variable} is required in production`, () => {
      const env: Record<string, string> = { ...productionEnv };
      delete env[variable];
      assert.equal(refusal(env).variable, variable);
    });
  }

  for (const variable of ['SIGNING_KEYS', 'PAIRWISE_SECRET', 'COOKIE_KEYS']) {
    for (const environment of ['sandbox', 'staging']) {
      test(`${variable} is required in ${environment} whenever REDIS_URL is set (processes share state)`, () => {
        const env: Record<string, string> = {
          ...sharedSecrets,
          DEVELOPER_PLATFORM_ENVIRONMENT: environment,
          REDIS_URL: 'redis://127.0.0.1:6379',
        };
        delete env[variable];
        const error = refusal(env);
        assert.equal(error.variable, variable);
        assert.match(error.message, /is required whenever REDIS_URL is set/);
      });
    }
  }

  test('a job on the stores (db:migrate, admin) reads their settings alone: no secret is required beside REDIS_URL', () => {
    const settings = loadStoreSettings({
      DEVELOPER_PLATFORM_ENVIRONMENT: 'staging',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/test',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: 'job:',
    });
    assert.equal(settings.redisUrl, 'redis://127.0.0.1:6379');
    assert.equal(settings.redisKeyPrefix, 'job:');
    assert.throws(() => loadStoreSettings({ DATABASE_URL: 'mysql://x' }), { variable: 'DATABASE_URL' });
  });

  test('without REDIS_URL (one process) the secrets may be left to be generated', () => {
    assert.equal(loadConfig({}).secretSettings.signingKeys, null);
  });

  test('every secret, DATABASE_URL and REDIS_URL also read from NAME_FILE, trimmed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'devplat-config-'));
    const file = (name: string, value: string) => {
      writeFileSync(join(dir, name), `${value}\n`);
      return join(dir, name);
    };
    const config = loadConfig({
      SIGNING_KEYS_FILE: file('keys', sharedSecrets.SIGNING_KEYS as string),
      PAIRWISE_SECRET_FILE: file('pairwise', sharedSecrets.PAIRWISE_SECRET as string),
      COOKIE_KEYS_FILE: file('cookies', sharedSecrets.COOKIE_KEYS as string),
      DATABASE_URL_FILE: file('database', 'postgresql://db.internal/platform'),
      REDIS_URL_FILE: file('redis', 'redis://redis.internal:6379'),
    });
    assert.equal(config.secretSettings.signingKeys, sharedSecrets.SIGNING_KEYS);
    assert.equal(config.secretSettings.pairwiseSecret, sharedSecrets.PAIRWISE_SECRET);
    assert.equal(config.secretSettings.cookieKeys, sharedSecrets.COOKIE_KEYS);
    assert.equal(config.databaseUrl, 'postgresql://db.internal/platform');
    assert.equal(config.redisUrl, 'redis://redis.internal:6379');

    assert.match(
      refusal({ PAIRWISE_SECRET: 'p'.repeat(32), PAIRWISE_SECRET_FILE: file('p2', 'q'.repeat(32)) }).message,
      /^PAIRWISE_SECRET and PAIRWISE_SECRET_FILE are both set/,
    );
    const missing = refusal({ COOKIE_KEYS_FILE: join(dir, 'absent') });
    assert.equal(missing.variable, 'COOKIE_KEYS_FILE');
    assert.match(missing.message, /cannot be read .*ENOENT/);
    assert.equal(refusal({ COOKIE_KEYS_FILE: file('empty', '') }).variable, 'COOKIE_KEYS_FILE');
    const short = refusal({ PAIRWISE_SECRET_FILE: file('short', 'hunter2-secret') });
    assert.equal(short.variable, 'PAIRWISE_SECRET');
    assert.ok(!short.message.includes('hunter2'), 'a secret read from a file is never echoed either');
  });

  test("every listener's port can be set apart from its URL; management and drain settings", () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.ports, {
      playerClient: 8081,
      console: 8082,
      mock: 8083,
      authInternal: 8084,
      management: null,
    });
    assert.deepEqual(defaults.shutdown, { delayMs: 5_000, timeoutMs: 25_000 });
    const config = loadConfig({
      PLAYER_CLIENT_URL: 'https://play.example.test',
      PLAYER_CLIENT_PORT: '3001',
      CONSOLE_PORT: '3002',
      MOCK_PORT: '3003',
      AUTH_INTERNAL_PORT: '3004',
      MANAGEMENT_PORT: '0',
      SHUTDOWN_DELAY_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '2000',
    });
    assert.equal(config.playerClientUrl.origin, 'https://play.example.test');
    assert.deepEqual(config.ports, {
      playerClient: 3001,
      console: 3002,
      mock: 3003,
      authInternal: 3004,
      management: 0,
    });
    assert.deepEqual(config.shutdown, { delayMs: 0, timeoutMs: 2_000 });
    assert.equal(refusal({ CONSOLE_PORT: '0' }).variable, 'CONSOLE_PORT');
    assert.equal(refusal({ SHUTDOWN_TIMEOUT_MS: '1000', SHUTDOWN_DELAY_MS: '5000' }).variable, 'SHUTDOWN_DELAY_MS');
  });

  test('a refused secret is never echoed', () => {
    const secret = 'hunter2-very-secret';
    assert.ok(!refusal({ PAIRWISE_SECRET: secret }).message.includes(secret));
    assert.ok(!refusal({ COOKIE_KEYS: secret }).message.includes(secret));
  });

  test('a bad value stops the process with one line naming the variable', () => {
    const entry = new URL('../../../../services/platform/src/main.ts', import.meta.url).pathname;
    const result = spawnSync(process.execPath, [entry], {
      env: { PATH: process.env.PATH, DEVELOPER_PLATFORM_ENVIRONMENT: 'moon' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 78);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'configuration error: DEVELOPER_PLATFORM_ENVIRONMENT must be one of sandbox, staging, production (got "moon")\n',
    );
  });
});
