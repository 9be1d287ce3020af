// Tracing switched on, against a real OTLP/HTTP receiver: a token request and a /me, each arriving
// with a traceparent, reach the receiver as one linked trace each (server span, the token flow's
// internal span, PostgreSQL through pg and through Prisma's adapter, Redis, an outgoing call that
// carries the trace on), and no attribute of any span carries a secret the requests or the code
// passed in. PostgreSQL and Redis take part when DATABASE_URL and REDIS_URL are set.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type OtlpReceiver, type ReceivedSpan, spanKind, startOtlpReceiver } from '@devplat/test/otlp-receiver';
import Router from '@koa/router';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { Redis } from 'ioredis';
import Koa from 'koa';
import pg from 'pg';
import { startTracing, type Tracing } from '../src/index.ts';

const databaseUrl = process.env.DATABASE_URL?.trim() || null;
const redisUrl = process.env.REDIS_URL?.trim() || null;

// What the requests and the code pass in, and no span may carry.
const password = `correct horse battery staple ${randomBytes(3).toString('hex')}`;
const clientSecret = `svs_${randomBytes(32).toString('base64url')}`;
const code = `sva_${randomBytes(32).toString('base64url')}`;
const jwt = [
  Buffer.from('{"alg":"EdDSA","typ":"at+jwt","kid":"k1"}').toString('base64url'),
  Buffer.from(
    JSON.stringify({ sub: `ps_${randomBytes(24).toString('base64url')}`, scope: 'profile.basic.read' }),
  ).toString('base64url'),
  randomBytes(64).toString('base64url'),
].join('.');
const secrets = { password, clientSecret, code, jwt };
const clientId = 'svc_abcdefghijklmnopqrstuvwxyz';

const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const callerTrace = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') };
const meTrace = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') };

async function listening(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A second server, the one the token flow calls out to: it keeps the traceparent it was sent. */
async function startDownstream() {
  const traceparents: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    traceparents.push(req.headers.traceparent as string | undefined);
    req.resume().on('end', () => res.writeHead(204).end());
  });
  return { url: await listening(server), traceparents, server };
}

interface Stores {
  pool: pg.Pool | null;
  prismaAdapter: SqlDriverAdapter | null;
  redis: Redis | null;
}

/** `seen`: the token handler's ctx.state.traceId and tracing.traceId(), for the log line. */
function buildApp(tracing: Tracing, stores: Stores, downstreamUrl: string, seen: unknown[]): Koa {
  const query = stores.pool && tracing.query(async (text, values) => (await stores.pool!.query(text, values)).rows);
  const router = new Router();
  router.post('/developer/v1/oauth/token', async (ctx) => {
    seen.push(ctx.state.traceId, tracing.traceId());
    ctx.body = await tracing.span(
      'oauth.token',
      // The sanitizer's business: a key off the allowlist, and credentials under allowed keys.
      { 'devplat.oauth.grant_type': 'authorization_code', password, 'devplat.oauth.error': code },
      async (span) => {
        span.set('devplat.oauth.client_id', clientId);
        span.set('devplat.oauth.error', `Bearer ${jwt}`);
        span.set('client_secret', clientSecret);
        if (query) await query('SELECT $1::text AS password, $2::text AS code', [password, code]);
        if (stores.redis) {
          await stores.redis.set(`tracing-test:${code}`, clientSecret, 'EX', 30);
          await stores.redis.del(`tracing-test:${code}`);
        }
        const answer = await tracing.fetch(`${downstreamUrl}/callback/${code}?code=${code}&token=${jwt}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${jwt}`, 'content-type': 'text/plain' },
          body: password,
        });
        return { downstream: answer.status };
      },
    );
  });
  router.get('/developer/v1/me', async (ctx) => {
    const adapter = stores.prismaAdapter;
    if (adapter) {
      await adapter.queryRaw({
        sql: 'SELECT $1::text AS token',
        args: [jwt],
        argTypes: [{ scalarType: 'string', arity: 'scalar' }],
      });
      const transaction = await adapter.startTransaction();
      await transaction.executeRaw({ sql: 'SELECT 1', args: [], argTypes: [] });
      await transaction.executeRaw({ sql: 'COMMIT', args: [], argTypes: [] });
      await transaction.commit();
    }
    ctx.body = { sub: 'ps_x', display_name: null };
  });
  router.get('/developer/v1/players/:id', (ctx) => {
    ctx.body = { id: ctx.params.id };
  });
  router.get('/developer/v1/broken', () => {
    throw new Error(`failed with ${password}`);
  });
  const app = new Koa();
  app.silent = true;
  app.use(tracing.koa());
  app.use((ctx, next) => {
    ctx.state.requestId = `req_${randomBytes(16).toString('hex')}`;
    return next();
  });
  app.use(router.routes());
  return app;
}

describe('tracing switched on, against a real OTLP/HTTP receiver', () => {
  let receiver: OtlpReceiver;
  let downstream: Awaited<ReturnType<typeof startDownstream>>;
  let spans: ReceivedSpan[];
  const seen: unknown[] = [];
  const stores: Stores = { pool: null, prismaAdapter: null, redis: null };
  let prismaFactory: SqlDriverAdapterFactory | null = null;

  before(async () => {
    receiver = await startOtlpReceiver();
    downstream = await startDownstream();
    const tracing = startTracing({
      serviceName: 'tracing-test',
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k-123',
        OTEL_SERVICE_NAME: 'devplat-tracing-test',
      },
    });
    assert.equal(tracing.enabled, true);
    if (databaseUrl) {
      stores.pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
      prismaFactory = tracing.prismaAdapter(
        new PrismaPg(new pg.Pool({ connectionString: databaseUrl, max: 2 }), { disposeExternalPool: true }),
        { address: '127.0.0.1', port: 5432, namespace: 'test' },
      );
      stores.prismaAdapter = await prismaFactory.connect();
    }
    if (redisUrl) {
      stores.redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      tracing.redis(stores.redis);
      await stores.redis.connect();
      await stores.redis.ping(); // outside any trace: no span
    }
    const app = buildApp(tracing, stores, downstream.url, seen);
    const server = http.createServer(app.callback());
    const base = await listening(server);
    try {
      const token = await fetch(`${base}/developer/v1/oauth/token?code=${code}`, {
        method: 'POST',
        headers: {
          traceparent: traceparent(callerTrace.traceId, callerTrace.spanId),
          authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, client_secret: clientSecret, password }),
      });
      assert.equal(token.status, 200);
      assert.deepEqual(await token.json(), { downstream: 204 });
      const me = await fetch(`${base}/developer/v1/me`, {
        headers: { traceparent: traceparent(meTrace.traceId, meTrace.spanId), authorization: `Bearer ${jwt}` },
      });
      assert.equal(me.status, 200);
      assert.equal((await fetch(`${base}/developer/v1/players/${code}`)).status, 200);
      assert.equal((await fetch(`${base}/developer/v1/broken`, { headers: { cookie: `s=${jwt}` } })).status, 500);
      assert.equal((await fetch(`${base}/nowhere/${code}`)).status, 404);
    } finally {
      server.close();
    }
    await tracing.shutdown(); // exports what is left
    spans = receiver.spans();
  });

  after(async () => {
    await stores.pool?.end();
    await stores.prismaAdapter?.dispose();
    stores.redis?.disconnect();
    downstream.server.close();
    await receiver.close();
  });

  const only = (predicate: (span: ReceivedSpan) => boolean, what: string) => {
    const found = spans.filter(predicate);
    assert.equal(found.length, 1, `one ${what}, got ${JSON.stringify(found)} among ${spans.map((s) => s.name)}`);
    return found[0]!;
  };

  test('the receiver got OTLP/HTTP JSON on /v1/traces with the configured headers and service name', () => {
    assert.ok(receiver.bodies.length > 0);
    assert.deepEqual(receiver.strays, []);
    for (const headers of receiver.headers) {
      assert.match(String(headers['content-type']), /^application\/json/);
      assert.equal(headers['x-collector-key'], 'k-123');
    }
    assert.ok(spans.every((span) => span.service === 'devplat-tracing-test'));
  });

  test("the token request's server span continues the caller's traceparent, named by its route", () => {
    const server = only((span) => span.kind === spanKind.server && span.traceId === callerTrace.traceId, 'server span');
    assert.equal(server.parentSpanId, callerTrace.spanId);
    assert.equal(server.name, 'POST /developer/v1/oauth/token');
    const { 'devplat.request_id': requestId, ...attributes } = server.attributes;
    assert.deepEqual(attributes, {
      'http.request.method': 'POST',
      'http.route': '/developer/v1/oauth/token',
      'http.response.status_code': 200,
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
    });
    assert.match(String(requestId), /^req_[0-9a-f]{32}$/, 'the request id of the log line');
    assert.equal(server.status, 0);
    assert.deepEqual(seen, [callerTrace.traceId, callerTrace.traceId], 'ctx.state.traceId and traceId()');
  });

  test('the token flow, its statement, its Redis commands and its outgoing call are linked in that trace', () => {
    const server = only((span) => span.kind === spanKind.server && span.traceId === callerTrace.traceId, 'server span');
    const flow = only((span) => span.name === 'oauth.token', 'token flow span');
    assert.equal(flow.kind, spanKind.internal);
    assert.equal(flow.traceId, callerTrace.traceId);
    assert.equal(flow.parentSpanId, server.spanId);
    assert.deepEqual(flow.attributes, {
      'devplat.oauth.grant_type': 'authorization_code',
      'devplat.oauth.client_id': clientId,
    });

    const outgoing = only(
      (span) => span.kind === spanKind.client && span.attributes['http.request.method'] !== undefined,
      'client span',
    );
    assert.equal(outgoing.traceId, callerTrace.traceId);
    assert.equal(outgoing.parentSpanId, flow.spanId);
    assert.equal(outgoing.name, 'POST');
    assert.deepEqual(outgoing.attributes, {
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(downstream.url).port),
      'url.scheme': 'http',
      'http.response.status_code': 204,
    });
    assert.deepEqual(downstream.traceparents, [traceparent(callerTrace.traceId, outgoing.spanId)]);

    if (databaseUrl) {
      const statement = only(
        (span) => span.attributes['db.query.text'] === 'SELECT $1::text AS password, $2::text AS code',
        'pg span',
      );
      assert.equal(statement.kind, spanKind.client);
      assert.equal(statement.traceId, callerTrace.traceId);
      assert.equal(statement.parentSpanId, flow.spanId);
      assert.equal(statement.name, 'SELECT');
      assert.equal(statement.attributes['db.system.name'], 'postgresql');
      assert.equal(statement.attributes['db.operation.name'], 'SELECT');
    }
    if (redisUrl) {
      const commands = spans.filter((span) => span.attributes['db.system.name'] === 'redis');
      assert.deepEqual(
        commands.map((span) => span.name),
        ['SET', 'DEL'],
        'one span per command sent inside the trace (not the connection handshake or the PING outside it)',
      );
      for (const command of commands) {
        assert.equal(command.kind, spanKind.client);
        assert.equal(command.traceId, callerTrace.traceId);
        assert.equal(command.parentSpanId, flow.spanId);
        assert.deepEqual(Object.keys(command.attributes).sort(), [
          'db.namespace',
          'db.operation.name',
          'db.system.name',
          'server.address',
          'server.port',
        ]);
      }
    }
  });

  test("/me's server span continues its traceparent, and Prisma's statements are its children", () => {
    const server = only((span) => span.kind === spanKind.server && span.traceId === meTrace.traceId, '/me server span');
    assert.equal(server.parentSpanId, meTrace.spanId);
    assert.equal(server.name, 'GET /developer/v1/me');
    if (databaseUrl) {
      const statements = spans.filter((span) => span.traceId === meTrace.traceId && span.kind === spanKind.client);
      assert.deepEqual(
        statements.map((span) => span.attributes['db.query.text']),
        ['SELECT $1::text AS token', 'SELECT 1', 'COMMIT'],
      );
      for (const statement of statements) {
        assert.equal(statement.parentSpanId, server.spanId);
        assert.equal(statement.attributes['db.system.name'], 'postgresql');
        assert.equal(statement.attributes['server.address'], '127.0.0.1');
        assert.equal(statement.attributes['db.namespace'], 'test');
      }
    }
  });

  test('a server span is named by the route template, never the path; unmatched when none matched; failed on a 5xx', () => {
    only((span) => span.name === 'GET /developer/v1/players/:id', 'templated span');
    const unmatched = only((span) => span.name === 'GET unmatched', 'unmatched span');
    assert.equal(unmatched.attributes['http.response.status_code'], 404);
    assert.equal(unmatched.attributes['http.route'], undefined);
    const broken = only((span) => span.name === 'GET /developer/v1/broken', 'failed span');
    assert.equal(broken.status, 2);
    assert.equal(broken.attributes['http.response.status_code'], 500);
    assert.equal(broken.attributes['error.type'], 'Error');
  });

  test('no span carries a secret: not in a name, an attribute key or value, nor anywhere in what was exported', () => {
    assert.ok(spans.length >= 7);
    for (const span of spans) {
      const texts = [span.name, ...Object.keys(span.attributes), ...Object.values(span.attributes).map(String)];
      for (const [label, secret] of Object.entries(secrets)) {
        for (const text of texts) assert.ok(!text.includes(secret), `${label} in ${span.name}: ${text}`);
      }
      for (const key of Object.keys(span.attributes)) {
        assert.doesNotMatch(key, /password|secret|token|authorization|cookie|header|url\.(full|path|query)/);
      }
    }
    for (const body of receiver.bodies) {
      for (const [label, secret] of Object.entries(secrets)) assert.ok(!body.includes(secret), `${label} exported`);
      assert.ok(!body.includes('eyJ'), 'nothing JWT-like exported');
      assert.ok(!body.includes('/callback/'), 'no outgoing path exported');
    }
  });
});
