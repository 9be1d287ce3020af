import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { apiApp, createLogger, listen, operation, ProblemError, type RunningServer } from '../src/index.ts';

interface Problem {
  code: string;
  status: number;
  instance: string;
  request_id: string;
}

async function send(origin: string, method: string, path: string, body?: string) {
  const response = await fetch(`${origin}${path}`, { method, body });
  const text = await response.text();
  const isProblem = response.headers.get('content-type') === 'application/problem+json';
  return { response, text, problem: (isProblem ? JSON.parse(text) : undefined) as Problem | undefined };
}

describe('apiApp', () => {
  let server: RunningServer;
  const lines: string[] = [];
  before(async () => {
    const logger = createLogger('info', 'test', { write: (line: string) => lines.push(line) });
    const router = new Router({ prefix: '/v1', strict: true, sensitive: true });
    operation(router, '/things', {
      GET: (ctx) => {
        ctx.body = { things: [] };
      },
      POST: (ctx) => {
        ctx.status = 201;
      },
    });
    operation(router, '/crash', {
      GET: () => {
        throw new Error('database password is hunter2');
      },
    });
    operation(router, '/refused', {
      GET: (ctx) => {
        ctx.state.clientId = 'svc_0123456789abcdef0123456789abcdef';
        throw new ProblemError('INSUFFICIENT_SCOPE', 'This operation needs the scope city.public.read.');
      },
    });
    const second = new Router();
    operation(second, '/second', {
      GET: (ctx) => {
        ctx.body = 'from the second router';
      },
    });
    const lastResort: Middleware = (ctx, next) => {
      if (ctx.path !== '/middleware') return next();
      ctx.body = 'from a plain middleware';
    };
    const app = apiApp({ logger, maxBodyBytes: 64 }, router, second, lastResort);
    server = await listen(app.callback(), '127.0.0.1', 0);
  });
  after(() => server.close());

  test('is silent, and takes keys and proxy', () => {
    const logger = createLogger('silent', 'test');
    const plain = apiApp({ logger });
    assert.equal(plain.silent, true);
    assert.equal(plain.proxy, false);
    const configured = apiApp({ logger, keys: ['k'.repeat(32)], forwarded: { secure: true } });
    assert.deepEqual(configured.keys, ['k'.repeat(32)]);
    assert.equal(configured.proxy, true);
  });

  test('behind a proxy, the client address is the entry the proxy added, not one the client wrote', async () => {
    const router = new Router();
    operation(router, '/ip', {
      GET: (ctx) => {
        ctx.body = { ip: ctx.ip };
      },
    });
    const proxied = await listen(
      apiApp({ logger: createLogger('silent', 'test'), forwarded: { secure: true } }, router).callback(),
      '127.0.0.1',
      0,
    );
    try {
      const forged = await fetch(`${proxied.origin}/ip`, {
        headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' },
      });
      assert.deepEqual(await forged.json(), { ip: '198.51.100.7' });
    } finally {
      await proxied.close();
    }
  });

  test('with TRUSTED_PROXIES, X-Forwarded-* counts from those peers alone', async () => {
    const router = new Router();
    operation(router, '/who', {
      GET: (ctx) => {
        ctx.body = { ip: ctx.ip, protocol: ctx.protocol, host: ctx.host };
      },
    });
    const forwarded = { secure: false, trustedProxies: ['127.0.0.1', '10.0.0.0/8'] };
    const server = await listen(
      apiApp({ logger: createLogger('silent', 'test'), forwarded }, router).callback(),
      '0.0.0.0',
      0,
    );
    const headers = {
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example',
    };
    const who = (localAddress: string) =>
      new Promise<unknown>((resolve, reject) => {
        const url = `http://127.0.0.1:${new URL(server.origin).port}/who`;
        request(url, { headers, localAddress }, (response) => {
          let text = '';
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () => resolve(JSON.parse(text)));
        })
          .on('error', reject)
          .end();
      });
    try {
      assert.deepEqual(await who('127.0.0.1'), { ip: '203.0.113.9', protocol: 'https', host: 'api.example' });
      const port = new URL(server.origin).port;
      assert.deepEqual(await who('127.0.0.5'), { ip: '127.0.0.5', protocol: 'http', host: `127.0.0.1:${port}` });
    } finally {
      await server.close();
    }
  });

  test('answers with a server-made request id and the common and security headers', async () => {
    const { response } = await send(server.origin, 'GET', '/v1/things');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
    assert.equal(response.headers.get('x-service-api-version'), '1.0');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  });

  test('runs every route in order, routers and plain middleware alike', async () => {
    assert.equal((await send(server.origin, 'GET', '/second')).text, 'from the second router');
    assert.equal((await send(server.origin, 'GET', '/middleware')).text, 'from a plain middleware');
  });

  test('renders a thrown error as a Problem that reveals nothing', async () => {
    const { response, text, problem } = await send(server.origin, 'GET', '/v1/crash');
    assert.equal(response.status, 500);
    assert.equal(problem?.code, 'INTERNAL_ERROR');
    assert.equal(problem?.request_id, response.headers.get('x-request-id'));
    assert.ok(!text.includes('hunter2'));
  });

  test('answers an unknown path 404 and a wrong method 405 with Allow, as Problems', async () => {
    const missing = await send(server.origin, 'DELETE', '/v1/nothing-here');
    assert.equal(missing.response.status, 404);
    assert.equal(missing.problem?.code, 'NOT_FOUND');
    assert.equal(missing.problem?.instance, '/v1/nothing-here');
    assert.equal(missing.response.headers.get('x-service-api-version'), '1.0');

    const wrong = await send(server.origin, 'PUT', '/v1/things');
    assert.equal(wrong.response.status, 405);
    assert.equal(wrong.problem?.code, 'METHOD_NOT_ALLOWED');
    assert.equal(wrong.response.headers.get('allow'), 'GET, HEAD, POST');
  });

  test('refuses a body announced over maxBodyBytes with 413 before any route', async () => {
    const large = await send(server.origin, 'POST', '/v1/things', 'x'.repeat(65));
    assert.equal(large.response.status, 413);
    assert.equal(large.problem?.code, 'PAYLOAD_TOO_LARGE');
    const outside = await send(server.origin, 'POST', '/nothing-here', 'x'.repeat(65));
    assert.equal(outside.response.status, 413);
    assert.equal((await send(server.origin, 'POST', '/v1/things', 'x'.repeat(64))).response.status, 201);
  });

  test('logs one line per request with its request id and final status', async () => {
    const { response } = await send(server.origin, 'GET', '/v1/crash');
    const requestId = response.headers.get('x-request-id');
    const entries = lines.map((line) => JSON.parse(line)).filter((entry) => entry.request_id === requestId);
    const requests = entries.filter((entry) => entry.msg === 'request');
    assert.equal(requests.length, 1);
    assert.deepEqual([requests[0].method, requests[0].path, requests[0].status], ['GET', '/v1/crash', 500]);
  });

  test("the request's line carries the app's client id and the contract's error code where known", async () => {
    const { response } = await send(server.origin, 'GET', '/v1/refused');
    assert.equal(response.status, 403);
    const line = lines
      .map((entry) => JSON.parse(entry))
      .find((entry) => entry.request_id === response.headers.get('x-request-id'));
    assert.equal(line.client_id, 'svc_0123456789abcdef0123456789abcdef');
    assert.equal(line.error, 'INSUFFICIENT_SCOPE');
    const plain = await send(server.origin, 'GET', '/v1/things');
    const quiet = lines
      .map((entry) => JSON.parse(entry))
      .find((entry) => entry.request_id === plain.response.headers.get('x-request-id'));
    assert.ok(!('client_id' in quiet) && !('error' in quiet), 'absent where unknown');
  });
});

describe('operation', () => {
  let server: RunningServer;
  const guarded: string[] = [];
  before(async () => {
    const router = new Router({ strict: true, sensitive: true });
    const answer =
      (status: number, body: string): Middleware =>
      (ctx) => {
        ctx.status = status;
        ctx.body = `${body} ${ctx.state.guard ?? 'unguarded'}`;
      };
    const guard: Middleware = async (ctx, next) => {
      guarded.push(ctx.method);
      if (ctx.get('x-refuse')) throw new ProblemError('NOT_SIGNED_IN', 'Refused by the guard.');
      ctx.state.guard = 'guarded';
      await next();
    };
    const stamp: Middleware = async (ctx, next) => {
      ctx.set('x-chain', 'stamped');
      await next();
    };
    // Listed out of order: the Allow header is in a fixed order whatever the handlers' order.
    operation(
      router,
      '/items/:id',
      {
        DELETE: answer(204, 'deleted'),
        PATCH: answer(200, 'patched'),
        PUT: answer(200, 'put'),
        POST: [stamp, answer(201, 'posted')],
        GET: answer(200, 'got'),
      },
      guard,
    );
    operation(router, '/open', { GET: answer(200, 'open') });
    operation(router, '/gone', { DELETE: answer(204, 'deleted') });
    server = await listen(apiApp({ logger: createLogger('silent', 'test') }, router).callback(), '127.0.0.1', 0);
  });
  after(() => server.close());

  test('answers each of its methods with its own handlers behind the guard, HEAD with GET', async () => {
    for (const [method, status, text] of [
      ['GET', 200, 'got guarded'],
      ['HEAD', 200, ''],
      ['POST', 201, 'posted guarded'],
      ['PUT', 200, 'put guarded'],
      ['PATCH', 200, 'patched guarded'],
      ['DELETE', 204, ''],
    ] as const) {
      const { response, text: body } = await send(server.origin, method, '/items/1');
      assert.equal(response.status, status, method);
      assert.equal(body, text, method);
    }
    assert.equal((await send(server.origin, 'POST', '/items/1')).response.headers.get('x-chain'), 'stamped');
    assert.equal((await send(server.origin, 'GET', '/open')).text, 'open unguarded');
  });

  test('the guard runs before every method and its refusal stands', async () => {
    guarded.length = 0;
    const response = await fetch(`${server.origin}/items/1`, { method: 'PATCH', headers: { 'x-refuse': '1' } });
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as Problem).code, 'NOT_SIGNED_IN');
    assert.deepEqual(guarded, ['PATCH']);
  });

  test('refuses every other method with 405 and Allow, without running the guard', async () => {
    guarded.length = 0;
    for (const method of ['OPTIONS']) {
      const { response, problem } = await send(server.origin, method, '/items/1');
      assert.equal(response.status, 405, method);
      assert.equal(problem?.code, 'METHOD_NOT_ALLOWED');
      assert.equal(response.headers.get('allow'), 'GET, HEAD, POST, PUT, PATCH, DELETE');
    }
    assert.deepEqual(guarded, []);
    const open = await send(server.origin, 'POST', '/open');
    assert.equal(open.response.status, 405);
    assert.equal(open.response.headers.get('allow'), 'GET, HEAD');
    const gone = await send(server.origin, 'GET', '/gone');
    assert.equal(gone.response.status, 405);
    assert.equal(gone.response.headers.get('allow'), 'DELETE');
  });
});
