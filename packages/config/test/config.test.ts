import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { productionEnv } from '@devplat/test/env';
import { ConfigError, cookieHosts, listenHost, loadConfig } from '../src/index.ts';

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

  test('a refused secret is never echoed', () => {
    const secret = 'hunter2-very-secret';
    assert.ok(!refusal({ PAIRWISE_SECRET: secret }).message.includes(secret));
    assert.ok(!refusal({ COOKIE_KEYS: secret }).message.includes(secret));
  });

  test('a bad value stops the process with one line naming the variable', () => {
    const entry = new URL('../../../services/platform/src/main.ts', import.meta.url).pathname;
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
