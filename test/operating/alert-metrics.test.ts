// Every metric an alert (infra/prometheus/alerts.yaml) or a panel of the Grafana dashboard
// (infra/grafana/devplat-dashboard.json) reads is one a running platform exports: the platform of
// `npm start` is started on the real PostgreSQL and Redis, one call of each kind is made where a
// series appears only once observed (a token, a wrong client secret, a FEATURE_DISABLED answer, a
// sign-in lock, a webhook delivery, a readiness probe), and its management listener's /metrics is
// scraped. The one process runs every service, so its /metrics holds every process's families. Names
// are read out of the expressions (infra/prometheus/metric-names.ts): a rule renamed in one place
// and not the other, or a family dropped, fails here rather than leaving an alert that never fires.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp } from '@devplat/test/apps';
import { allowOverHttp, createNamedApp, formField, PlayerAgent, refresh } from '@devplat/test/connected-apps';
import { consoleCall, registerDeveloper } from '@devplat/test/console-api';
import { realPostgresUrl } from '@devplat/test/database';
import { scrape } from '@devplat/test/metrics';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';
import { repoRoot } from '@devplat/test/process';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import { parse } from 'yaml';
import { dashboardExpressions, familyOf, metricNames, metricPrefix } from '../../infra/prometheus/metric-names.ts';

const redisUrl = process.env.REDIS_URL?.trim();
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';

/**
 * Metrics the alerts or the dashboard may read from a standard exporter rather than the platform,
 * by name, with the exporter that exports them. None today: every signal is the platform's own.
 */
const fromExporters = new Map<string, string>();

const alertsFile = 'infra/prometheus/alerts.yaml';
const dashboardFile = 'infra/grafana/devplat-dashboard.json';
const readRepoFile = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** Each rule's expression (alerts and recording rules), named for the assertion messages. */
function ruleExpressions(): { source: string; expr: string }[] {
  const { groups } = parse(readRepoFile(alertsFile)) as {
    groups: { rules: { alert?: string; record?: string; expr: string }[] }[];
  };
  return groups.flatMap((group) =>
    group.rules.map((rule) => ({ source: `${alertsFile}: ${rule.alert ?? rule.record}`, expr: rule.expr })),
  );
}

interface Panel {
  id: number;
  title: string;
  type: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; datasource?: { type: string; uid: string } }[];
}

function dashboard() {
  return JSON.parse(readRepoFile(dashboardFile)) as {
    __inputs: { name: string; type: string; pluginId: string }[];
    uid: string;
    title: string;
    panels: Panel[];
  };
}

function dashboardQueries(): { source: string; expr: string }[] {
  return dashboardExpressions(dashboard()).map((expr) => ({ source: dashboardFile, expr }));
}

/** Grafana's reference to the data source input the dashboard asks for on import. */
const dataSourceInput = ['$', '{DS_PROMETHEUS}'].join('');

describe('the Grafana dashboard (infra/grafana/devplat-dashboard.json)', () => {
  test('is JSON whose every panel queries Prometheus through the DS_PROMETHEUS input', () => {
    const board = dashboard();
    assert.ok(board.uid && board.title);
    assert.deepEqual(
      board.__inputs.map(({ name, type, pluginId }) => ({ name, type, pluginId })),
      [{ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }],
    );
    const panels = board.panels.filter((panel) => panel.type !== 'row');
    assert.ok(panels.length >= 10, `${panels.length} panels`);
    assert.equal(new Set(board.panels.map((panel) => panel.id)).size, board.panels.length, 'panel ids are unique');
    const prometheus = { type: 'prometheus', uid: dataSourceInput };
    for (const panel of panels) {
      assert.deepEqual(panel.datasource, prometheus, `${panel.title}: its data source`);
      assert.ok(panel.targets?.length, `${panel.title}: queries something`);
      for (const target of panel.targets ?? []) {
        assert.deepEqual(target.datasource, prometheus, `${panel.title}: its query's data source`);
        assert.ok(
          metricNames(target.expr).length > 0,
          `${panel.title}: reads a ${metricPrefix} metric: ${target.expr}`,
        );
      }
    }
  });

  test("reads every metric an alert reads: each alert's signal has a panel", () => {
    const shown = new Set(dashboardQueries().flatMap(({ expr }) => metricNames(expr)));
    const alerted = new Set(ruleExpressions().flatMap(({ expr }) => metricNames(expr)));
    assert.deepEqual(
      [...alerted].filter((name) => !shown.has(name)),
      [],
    );
  });
});

describe('the metrics the alerts and the dashboard read, on a running platform', { skip }, () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  let exposition: string;

  before(async () => {
    platform = await startTestPlatform({
      WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    receiver = await startWebhookReceiver();
    await callOfEachKind(platform, receiver);
    exposition = await (await fetch(`${managementOf(platform)}/metrics`)).text();
  });
  after(async () => {
    await receiver?.close();
    await platform?.close();
  });

  /** The names in `queries` with no sample on /metrics (a histogram's _bucket is its family's). */
  const missing = (queries: { source: string; expr: string }[]) => {
    const families = new Map(
      [...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name as string, type as string]),
    );
    const sampled = new Set(
      exposition
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => familyOf(/^[^{\s]+/.exec(line)?.[0] ?? '', families)),
    );
    return queries.flatMap(({ source, expr }) =>
      metricNames(expr)
        .filter((name) => !sampled.has(familyOf(name, families)) && !fromExporters.has(name))
        .map((name) => `${source}: ${name}`),
    );
  };

  test('every metric an alert expression reads has a series on /metrics', () => {
    const queries = ruleExpressions();
    assert.ok(queries.flatMap(({ expr }) => metricNames(expr)).length >= 10, 'the expressions name metrics');
    assert.deepEqual(missing(queries), []);
  });

  test('every metric a dashboard panel reads has a series on /metrics', () => {
    assert.deepEqual(missing(dashboardQueries()), []);
  });

  test('the new signals carry what was done: the lock, the invalid_client, the replay, the FEATURE_DISABLED, the key', async () => {
    const samples = await scrape(managementOf(platform));
    assert.equal(samples.get('devplat_ready'), 1);
    assert.equal(samples.get('devplat_dependency_up{dependency="postgresql"}'), 1);
    assert.equal(samples.get('devplat_dependency_up{dependency="redis"}'), 1);
    assert.equal(samples.get('devplat_sign_in_locks_total{door="console-sign-in",kind="account"}'), 1);
    assert.equal(samples.get('devplat_sign_in_locks_total{door="player-sign-in",kind="account"}'), 1);
    assert.equal(samples.get('devplat_sign_in_locks_total{door="player-sign-in",kind="address"}'), 0);
    assert.equal(samples.get('devplat_oauth_refusals_total{endpoint="token",error="invalid_client"}'), 1);
    assert.equal(samples.get('devplat_consents_ended_as_replay_total{reason="refresh_token_replay"}'), 1);
    assert.equal(
      samples.get(
        'devplat_http_server_errors_total{app="api",code="FEATURE_DISABLED",method="GET",route="/developer/v1/commerce"}',
      ),
      1,
    );
    const { keys } = (await (await fetch(`${platform.internal}/jwks.json`)).json()) as { keys: { kid: string }[] };
    const age = samples.get(`devplat_signing_key_age_seconds{kid="${keys[0]?.kid}"}`);
    assert.ok(age !== undefined && age >= 0 && age < 600, `the signing key's age: ${age}`);
    assert.equal(samples.get('devplat_outbox_backlog'), 0, 'the worker keeps up');
  });
});

/** The platform's management listener: /readyz and /metrics. */
const managementOf = (platform: TestPlatform) => platform.platform.service.managementServer.origin;

/** One call of each kind whose series appears only once observed. */
async function callOfEachKind(platform: TestPlatform, receiver: WebhookReceiver): Promise<void> {
  // Readiness, as a probe asks it: devplat_ready and each store's devplat_dependency_up.
  assert.equal((await fetch(`${managementOf(platform)}/readyz`)).status, 200);

  // A token, and a wrong client secret: devplat_oauth_tokens_issued_total, invalid_client.
  const { clientId, clientSecret } = await createTestApp(platform.database.prisma);
  const token = (secret: string) =>
    fetch(`${platform.base}/oauth/token`, {
      method: 'POST',
      headers: { authorization: basicAuth(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
  assert.equal((await token(clientSecret)).status, 200);
  assert.equal((await token('not-the-secret')).status, 401);

  // A rotated refresh token presented again: the consent ends, devplat_consents_ended_as_replay_total.
  const connected = await createNamedApp(platform.database.prisma, 'Replayed App');
  const { username, password } = await createPlayer(platform.database.prisma, connected.developer.id);
  const tokens = await allowOverHttp(platform.base, connected, { username, password });
  assert.equal((await refresh(platform.base, connected, tokens.refreshToken)).status, 200);
  assert.equal((await refresh(platform.base, connected, tokens.refreshToken)).status, 400);

  // An area outside the contract: a 5xx by design, counted by its code.
  assert.equal((await fetch(`${platform.base}/commerce`)).status, 503);

  // Six wrong passwords for one account at the console and at the player client: each sixth
  // attempt starts its account's lock.
  const email = `locked-${Date.now()}@example.test`;
  const player = new PlayerAgent(platform.playerClient);
  for (let attempt = 1; attempt <= 6; attempt++) {
    const answer = await consoleCall(platform.console, 'POST', '/sessions', { body: { email, password: 'wrong' } });
    assert.equal(answer.status, attempt <= 5 ? 401 : 429, `console sign-in attempt ${attempt}`);
    const form = await (await player.get('/signin')).text();
    const page = await player.post('/signin', {
      csrf: formField(form, 'csrf'),
      return_to: '/',
      username: 'nobody-here',
      password: 'wrong',
    });
    assert.equal(page.status, attempt <= 5 ? 401 : 429, `player sign-in attempt ${attempt}`);
  }

  // A test webhook from the console, delivered: devplat_webhook_attempts_total.
  const developer = await registerDeveloper(platform.console);
  const created = await consoleCall(platform.console, 'POST', '/apps', {
    token: developer.token,
    body: {
      name: 'Alerted App',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      scopes: ['city.public.read'],
      webhook_url: receiver.url,
    },
  });
  assert.equal(created.status, 201, created.text);
  const appId = created.json.app.client_id as string;
  const sent = await consoleCall(platform.console, 'POST', `/apps/${appId}/webhooks/test`, { token: developer.token });
  assert.equal(sent.status, 202, sent.text);
  await receiver.waitForRequests(1);
  await eventually(async () => {
    const samples = await scrape(managementOf(platform));
    return samples.get('devplat_webhook_attempts_total{outcome="delivered"}') === 1;
  });
}
