import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { startTracing } from '../src/index.ts';

test('shutdown is bounded: a collector that never answers holds it up about two seconds at most', async () => {
  const requests: string[] = [];
  const silent = http.createServer((req) => requests.push(`${req.method} ${req.url}`));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  try {
    const { port } = silent.address() as AddressInfo;
    const tracing = startTracing({
      serviceName: 'shutdown',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/otlp` },
    });
    await tracing.span('work', {}, async () => {});
    const started = performance.now();
    await tracing.shutdown();
    const took = performance.now() - started;
    assert.ok(took < 3_000, `took ${took} ms`);
    assert.deepEqual(requests, ['POST /otlp/v1/traces'], 'the base URL gets v1/traces appended');
    await tracing.shutdown(); // a second call is the first one's
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});

test('the wrappers keep what the wrapped function carries', () => {
  const tracing = startTracing({ serviceName: 'wrappers', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' } });
  const query = Object.assign(async (_text: string, _values: unknown[]) => [], { timeoutMs: 1234 });
  const traced = tracing.query(query);
  assert.notEqual(traced, query);
  assert.equal(traced.timeoutMs, 1234);
  const factory = { provider: 'postgres', adapterName: 'x', connect: async () => ({}) };
  const adapter = tracing.prismaAdapter(factory);
  assert.equal(adapter.provider, 'postgres');
  assert.equal(adapter.adapterName, 'x');
  return tracing.shutdown();
});
