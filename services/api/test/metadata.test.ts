import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { capabilityKeys } from '@devplat/contract';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { productionEnv } from '@devplat/test/env';
import { call } from '@devplat/test/http';
import { type StatusServer, startStatusServer } from '@devplat/test/status-server';
import { createStatusSource } from '../src/index.ts';
import { type RunningApi, startApi } from './support.ts';

const registry = JSON.parse(readFileSync(new URL('../../../prisma/seed/registry.json', import.meta.url), 'utf8')) as {
  countries: { code: string; name: string; region: string }[];
  cities: { id: string; country_code: string; availability: string; reviewed: boolean }[];
};
const allIntegrated = {
  oauth: true,
  cityRegistry: true,
  playerProfile: true,
  consentWebhooks: true,
  developerConsole: true,
};

let database: TestDatabase;
const running: RunningApi[] = [];
async function api(env: Record<string, string> = {}, options: Parameters<typeof startApi>[2] = {}) {
  const started = await startApi(database, env, options);
  running.push(started);
  return started;
}

before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  await Promise.all(running.map((server) => server.close()));
  await database.drop();
});

describe('GET /capabilities', () => {
  test('lists every documented key as a boolean, with the common headers', async () => {
    const { base } = await api();
    const answer = await call(base, '/capabilities');
    assert.equal(answer.status, 200);
    assert.equal(answer.json.api_version, '1.0');
    assert.equal(answer.json.environment, 'sandbox');
    assert.deepEqual(Object.keys(answer.json.capabilities).sort(), [...capabilityKeys].sort());
    assert.match(answer.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
    assert.equal(answer.headers.get('x-service-api-version'), '1.0');
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });

  test('what is not integrated is false', async () => {
    const { base } = await api();
    const { json } = await call(base, '/capabilities');
    assert.deepEqual(json.capabilities, Object.fromEntries(capabilityKeys.map((key) => [key, false])));
  });

  test('integrated capabilities are true; commerce, regulated assets and what does not exist stay false', async () => {
    const { base } = await api({ STATUS_URL: 'http://127.0.0.1:1/summary.json' }, { integrations: allIntegrated });
    const { json } = await call(base, '/capabilities');
    for (const key of [
      'oauth_client_credentials',
      'oauth_authorization_code',
      'oauth_refresh_token_rotation',
      'oauth_token_revocation',
      'city_registry',
      'player_profile',
      'consent_webhooks',
      'developer_console',
      'platform_status',
    ]) {
      assert.equal(json.capabilities[key], true, key);
    }
    for (const key of [
      'commerce',
      'regulated_assets',
      'production_credentials',
      'entitlements',
      'game_sessions',
      'leaderboards',
      'webhook_management',
      'rate_limiting',
      'signed_pagination',
      'sdks',
    ]) {
      assert.equal(json.capabilities[key], false, key);
    }
  });

  test('a switched-off platform reports its capabilities false', async () => {
    const { base } = await api({ DEVELOPER_PLATFORM_ENABLED: 'false' }, { integrations: allIntegrated });
    const { json } = await call(base, '/capabilities');
    assert.deepEqual(json.capabilities, Object.fromEntries(capabilityKeys.map((key) => [key, false])));
  });

  test('production is off unless switched on, and has no developer console', async () => {
    const off = await api(productionEnv, { integrations: allIntegrated });
    const offAnswer = await call(off.base, '/capabilities');
    assert.equal(offAnswer.json.environment, 'production');
    assert.equal(offAnswer.json.capabilities.oauth_client_credentials, false);
    const on = await api({ ...productionEnv, DEVELOPER_PLATFORM_ENABLED: 'true' }, { integrations: allIntegrated });
    const onAnswer = await call(on.base, '/capabilities');
    assert.equal(onAnswer.json.capabilities.oauth_client_credentials, true);
    assert.equal(onAnswer.json.capabilities.developer_console, false);
    assert.equal(onAnswer.json.capabilities.consent_webhooks, false, 'webhooks are sandbox only');
  });
});

describe('GET /regions', () => {
  test('lists exactly the countries with reviewed cities, each with its reviewed cities', async () => {
    const { base } = await api();
    const answer = await call(base, '/regions');
    assert.equal(answer.status, 200);
    assert.equal(answer.json.next_cursor, null);
    const reviewed = registry.cities.filter((city) => city.reviewed);
    const expected = registry.countries
      .filter((country) => reviewed.some((city) => city.country_code === country.code))
      .sort((a, b) => a.code.localeCompare(b.code))
      .map((country) => ({
        ...country,
        cities: reviewed
          .filter((city) => city.country_code === country.code)
          .map(({ id, availability }) => ({ id, availability }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      }));
    assert.deepEqual(answer.json.data, expected);
    assert.ok(answer.json.data.length >= 8);
    assert.ok(new Set(answer.json.data.map((country: { region: string }) => country.region)).size >= 4);
  });

  test('never shows an unreviewed city, nor a country whose cities are all unreviewed', async () => {
    const { base } = await api();
    const { text, json } = await call(base, '/regions');
    for (const city of registry.cities.filter((c) => !c.reviewed)) assert.ok(!text.includes(`"${city.id}"`), city.id);
    const codes = json.data.map((country: { code: string }) => country.code);
    for (const code of ['KE', 'NG', 'IS']) assert.ok(!codes.includes(code), code);
  });

  test('is empty while no city is listed', async () => {
    const empty = await createTestDatabase({ seed: false });
    try {
      const server = await startApi(empty);
      try {
        const answer = await call(server.base, '/regions');
        assert.deepEqual(answer.json, { api_version: '1.0', data: [], next_cursor: null });
      } finally {
        await server.close();
      }
    } finally {
      await empty.drop();
    }
  });
});

describe('GET /status', () => {
  let source: StatusServer;
  before(async () => {
    source = await startStatusServer();
  });
  after(() => source.close());

  test('sandbox with the platform on: status sandbox, never production ready, platform null when not integrated', async () => {
    const { base } = await api();
    const answer = await call(base, '/status');
    assert.deepEqual(answer.json, {
      api_version: '1.0',
      environment: 'sandbox',
      status: 'sandbox',
      production_ready: false,
      platform: null,
    });
  });

  test('staging, production and a switched-off sandbox are limited', async () => {
    const envs: Record<string, string>[] = [
      { DEVELOPER_PLATFORM_ENVIRONMENT: 'staging' },
      { ...productionEnv, DEVELOPER_PLATFORM_ENABLED: 'on' },
      { DEVELOPER_PLATFORM_ENABLED: 'off' },
    ];
    for (const env of envs) {
      const { base } = await api(env);
      const { json } = await call(base, '/status');
      assert.equal(json.status, 'limited', JSON.stringify(env));
      assert.equal(json.production_ready, false);
    }
  });

  test('carries the public platform status from the source', async () => {
    const { base } = await api({ STATUS_URL: source.url.href });
    const { json } = await call(base, '/status');
    assert.equal(json.platform.overall, 'DEGRADED');
    assert.equal(json.platform.updated_at, '2026-11-22T10:00:00.000Z');
    assert.deepEqual(json.platform.components[0], { code: 'api_gateway', status: 'OPERATIONAL' });
  });

  test('a source that never answers still gives a 200 with platform null, within a second or so', async () => {
    source.behave(() => {});
    const { base } = await api({}, { statusSource: createStatusSource(source.url, { timeoutMs: 800 }) });
    const started = Date.now();
    const answer = await call(base, '/status');
    assert.equal(answer.status, 200);
    assert.equal(answer.json.platform, null);
    assert.ok(Date.now() - started < 1_500);
  });
});
