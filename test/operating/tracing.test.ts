// Tracing across the split services, as real processes on PostgreSQL and Redis, exporting to a real
// OTLP/HTTP receiver standing in for the collector: a token request and a /me, each sent with a W3C
// traceparent, arrive as linked traces (the caller's span, the server span, the token flow's spans,
// PostgreSQL and Redis, and for /me the api's call for auth's key set continued by auth itself); a
// webhook attempt gets its span; the log line carries the trace id; and a scan of everything the
// receiver got finds no secret, token, code or password.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { sharedSecrets } from '@devplat/test/env';
import { type OtlpReceiver, type ReceivedSpan, spanKind, startOtlpReceiver } from '@devplat/test/otlp-receiver';
import { createPlayer } from '@devplat/test/players';
import { freePort, repoRoot } from '@devplat/test/process';
import { bearer, clientCredentialsToken, replicaServer, userToken } from '@devplat/test/replica-oauth';
import { type Deployment, plannedDeployment, type RunningProcess, startService } from '@devplat/test/services';
import { answer, eventually, startWebhookReceiver, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import { allowedAttributeKeys } from '@devplat/tracing';

const redisUrl = process.env.REDIS_URL?.trim() || null;
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';

const newTrace = () => ({ traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') });
const traceparent = ({ traceId, spanId }: { traceId: string; spanId: string }) => ({
  traceparent: `00-${traceId}-${spanId}-01`,
});

/** Every span of one trace links to another span of it, or to the caller's span it continued. */
function assertLinked(spans: ReceivedSpan[], callerSpanId: string) {
  const ids = new Set(spans.map((span) => span.spanId));
  for (const span of spans) {
    assert.ok(
      span.parentSpanId === callerSpanId || (span.parentSpanId !== undefined && ids.has(span.parentSpanId)),
      `${span.service} span "${span.name}" is linked into the trace`,
    );
  }
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.parentSpanId === parent.spanId);

describe('tracing across the split services', { skip }, () => {
  let database: TestDatabase;
  let receiver: OtlpReceiver;
  let webhooks: WebhookReceiver;
  let deployment: Deployment;
  let auth: RunningProcess;
  let api: RunningProcess;
  let worker: RunningProcess;
  /** Every credential the flow handles: none may reach the collector. */
  const secrets: string[] = [];

  before(async () => {
    database = await createTestDatabase();
    receiver = await startOtlpReceiver();
    webhooks = await startWebhookReceiver(answer(204));
    deployment = await plannedDeployment({
      DATABASE_URL: database.url as string,
      REDIS_URL: redisUrl as string,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
      WEBHOOK_POLL_MS: '50',
    });
    auth = await startService('auth', deployment, { PORT: String(await freePort()) });
    api = await startService('api', deployment, { LOG_LEVEL: 'info' });
    worker = await startService('worker', deployment);
    const signingKeys = JSON.parse(sharedSecrets.SIGNING_KEYS as string) as { keys: { d: string }[] };
    secrets.push(...signingKeys.keys.map((key) => key.d));
    secrets.push(sharedSecrets.PAIRWISE_SECRET as string, sharedSecrets.COOKIE_KEYS as string);
  });
  after(async () => {
    for (const running of [worker, api, auth]) await running?.stop();
    await receiver?.close();
    await webhooks?.close();
    await database?.drop();
  });

  const trace = (traceId: string) => receiver.spans().filter((span) => span.traceId === traceId);

  test('a token request continues its traceparent: server span, token flow, client authentication, PostgreSQL and Redis, linked', async () => {
    const created = await createTestApp(database.prisma);
    secrets.push(created.clientSecret);
    const caller = newTrace();
    const token = await clientCredentialsToken(
      replicaServer(deployment, auth),
      created.clientId,
      created.clientSecret,
      traceparent(caller),
    );
    secrets.push(token);

    const server = await eventually(() =>
      trace(caller.traceId).find((span) => span.kind === spanKind.server && span.parentSpanId === caller.spanId),
    );
    assert.equal(server.service, 'auth');
    // Named by the route template (oidc-provider's own, as in the request metrics), never the path.
    assert.equal(server.name, 'POST /oauth/token');
    assert.equal(server.attributes['http.route'], '/oauth/token');
    assert.equal(server.attributes['http.response.status_code'], 200);

    const spans = await eventually(() => {
      const all = trace(caller.traceId);
      return all.some((span) => span.name === 'oauth client authentication') && all;
    });
    const flow = childrenOf(spans, server).find((span) => span.name === 'oauth token');
    assert.ok(flow, 'the token flow is a child of the server span');
    assert.equal(flow.attributes['devplat.oauth.grant_type'], 'client_credentials');
    assert.equal(flow.attributes['devplat.oauth.client_id'], created.clientId);
    const authentication = spans.find((span) => span.name === 'oauth client authentication');
    assert.equal(authentication?.attributes['devplat.oauth.client_id'], created.clientId);
    const stores = spans.filter((span) => span.kind === spanKind.client);
    assert.ok(
      stores.some((span) => span.attributes['db.system.name'] === 'postgresql') ||
        stores.some((span) => span.attributes['db.system.name'] === 'redis'),
      `the app's lookup reaches a store inside the trace: ${spans.map((span) => span.name).join(', ')}`,
    );
    assertLinked(spans, caller.spanId);
  });

  test("a /me continues its traceparent at the api, PostgreSQL inside, the log line has the trace id; the api's call for the key set is continued by auth", async () => {
    const created = await createTestApp(database.prisma, { scopes: ['city.public.read', 'profile.basic.read'] });
    secrets.push(created.clientSecret);
    await database.prisma.app.update({ where: { id: created.app.id }, data: { webhookUrl: webhooks.url } });
    const player = await createPlayer(database.prisma, created.developer.id);
    secrets.push(player.password);
    const token = await userToken(replicaServer(deployment, auth), created, player);
    secrets.push(token);

    const caller = newTrace();
    const me = await bearer(deployment.base, '/me', token, traceparent(caller));
    assert.equal(me.status, 200, await me.text());

    const server = await eventually(() =>
      trace(caller.traceId).find((span) => span.kind === spanKind.server && span.service === 'api'),
    );
    assert.equal(server.parentSpanId, caller.spanId);
    assert.equal(server.name, 'GET /developer/v1/me');
    // The api loaded the key set before it listened (warmUp): that call's own trace continues at
    // auth's internal listener, whose span is the child of the api's client span.
    const jwks = await eventually(() =>
      receiver.spans().find((span) => span.service === 'auth' && span.name === 'GET /jwks.json'),
    );
    assert.notEqual(jwks.traceId, caller.traceId, 'the /me itself fetched no key');
    const call = trace(jwks.traceId).find((span) => span.spanId === jwks.parentSpanId);
    assert.equal(call?.service, 'api');
    assert.equal(call?.kind, spanKind.client);
    assert.equal(call?.attributes['server.port'], Number(new URL(deployment.internal).port));
    assert.equal(call?.attributes['url.path'], undefined, 'never the path');
    const spans = await eventually(() => {
      const all = trace(caller.traceId);
      return all.some((span) => span.service === 'api' && span.attributes['db.system.name'] === 'postgresql') && all;
    });
    assertLinked(spans, caller.spanId);

    const logLine = api
      .output()
      .split('\n')
      .find((line) => line.includes(`"trace_id":"${caller.traceId}"`));
    assert.ok(logLine, "the request's log line carries its trace id");
    assert.match(logLine, /"path":"\/developer\/v1\/me"/);
    assert.match(logLine, /"status":200/);

    // The consent above sent consent.granted: the worker's attempt has its span.
    const attempt = await eventually(
      () => receiver.spans().find((span) => span.service === 'worker' && span.name === 'webhook attempt'),
      15_000,
    );
    assert.equal(attempt.attributes['devplat.webhook.event_type'], 'consent.granted');
    assert.equal(attempt.attributes['devplat.webhook.outcome'], 'delivered');
    assert.equal(attempt.attributes['devplat.webhook.attempt'], 1);
  });

  test('nothing the collector received carries a secret, token, code or password, and every attribute key is allowed', async () => {
    assert.ok(receiver.spans().length > 10);
    assert.deepEqual(receiver.strays, []);
    for (const span of receiver.spans()) {
      for (const key of Object.keys(span.attributes)) {
        assert.ok(allowedAttributeKeys.has(key), `${span.service} span "${span.name}" carries ${key}`);
      }
    }
    const everything = receiver.bodies.join('\n');
    assert.ok(secrets.length >= 8);
    for (const secret of secrets) assert.ok(!everything.includes(secret), 'a credential reached the collector');
    // Our own formats (client secrets, codes, webhook secrets) and any JWT, whatever their value.
    assert.doesNotMatch(everything, /\b(?:svs|sva|whsec)_[A-Za-z0-9_-]{8,}/);
    assert.doesNotMatch(everything, /eyJ[A-Za-z0-9_-]{8,}/);
    assert.doesNotMatch(everything, /[?&]code=/);
  });

  test('an endpoint that is not an http(s) URL stops a service with exit 78, naming the variable', () => {
    for (const [endpoint, problem] of [
      ['ftp://collector', 'must be http(s)'],
      ['collector:4318', 'must be http(s)'],
      ['not a url', 'is not a URL'],
    ]) {
      const run = spawnSync(process.execPath, ['services/api/src/main.ts'], {
        cwd: repoRoot,
        env: { ...deployment.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(run.status, 78, run.stderr);
      assert.equal(run.stderr.trim(), `configuration error: OTEL_EXPORTER_OTLP_ENDPOINT ${problem}`);
    }
  });
});
