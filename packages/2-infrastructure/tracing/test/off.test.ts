// Without OTEL_EXPORTER_OTLP_ENDPOINT, tracing is the pass-through: nothing wrapped, nothing sent.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type OtlpReceiver, startOtlpReceiver } from '@devplat/test/otlp-receiver';
import Router from '@koa/router';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import { noopTracing, startTracing } from '../src/index.ts';

// Prints every OpenTelemetry module a process loads, on stderr, as it exits.
const recordLoads = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => process.stderr.write(JSON.stringify(loaded.filter((url) => url.includes('opentelemetry')))));
`;

/** The OpenTelemetry modules a process loads that starts tracing with this environment. */
function openTelemetryLoaded(env: Record<string, string>): string[] {
  const index = new URL('../src/index.ts', import.meta.url).href;
  const script = `const { startTracing } = await import(${JSON.stringify(index)});
startTracing({ serviceName: 'loads', env: ${JSON.stringify(env)} });`;
  const result = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(recordLoads)}`, '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stderr) as string[];
}

describe('tracing switched off', () => {
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(() => receiver.close());

  test('unless OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED is not true), startTracing is the no-op', () => {
    const elsewhere = { OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' };
    for (const env of [
      {},
      elsewhere,
      { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces` },
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' },
    ]) {
      const tracing = startTracing({ serviceName: 'off', env });
      assert.equal(tracing, noopTracing, JSON.stringify(env));
      assert.equal(tracing.enabled, false);
    }
  });

  test('loads nothing of OpenTelemetry: its SDK is loaded only when tracing is on', () => {
    assert.deepEqual(openTelemetryLoaded({}), []);
    assert.deepEqual(openTelemetryLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' }), []);
    const on = openTelemetryLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    assert.ok(
      on.some((url) => url.includes('@opentelemetry/sdk-trace')),
      'with an endpoint, the SDK is there',
    );
  });

  test('an endpoint that is not an http(s) URL is refused by name', () => {
    assert.throws(
      () => startTracing({ serviceName: 'bad', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' } }),
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  test('every seam is the identity or a pass-through, and no request reaches the receiver', async () => {
    const tracing = startTracing({ serviceName: 'off', env: {} });
    const query = Object.assign(async () => [], { timeoutMs: 5 });
    assert.equal(tracing.query(query), query);
    const factory = { connect: async () => ({}) };
    assert.equal(tracing.prismaAdapter(factory), factory);
    assert.equal(tracing.fetch, globalThis.fetch);
    const sendCommand = () => undefined;
    const client = { sendCommand, options: {} } as unknown as Redis;
    tracing.redis(client);
    assert.equal(client.sendCommand, sendCommand);
    assert.equal(tracing.koa(), tracing.koa(), 'one shared middleware');
    assert.equal(await tracing.span('oauth.token', { 'devplat.oauth.grant_type': 'x' }, async () => 42), 42);
    assert.equal(tracing.traceId(), undefined);

    const app = new Koa();
    const router = new Router();
    let traceId: unknown = 'unset';
    router.get('/developer/v1/me', (ctx) => {
      traceId = ctx.state.traceId;
      ctx.body = { ok: true };
    });
    app.use(tracing.koa());
    app.use(router.routes());
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/developer/v1/me`, {
        headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { ok: true });
      assert.equal(traceId, undefined);
    } finally {
      server.close();
    }
    await tracing.shutdown();
    await sleep(200);
    assert.equal(receiver.bodies.length + receiver.strays.length, 0);
  });
});
