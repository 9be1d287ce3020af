import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import {
  apiApp,
  apiEnvelope,
  createLogger,
  DependencyUnavailableError,
  listen,
  notFound,
  type RunningServer,
  readyJson,
  sendReady,
} from '../src/index.ts';

// A small app on the package's conventions, with routes that fail in each way a handler can.
let server: RunningServer;
const logLines: string[] = [];
before(async () => {
  const router = new Router();
  router.get('/crash', () => {
    throw new Error('database password is hunter2');
  });
  router.get('/store-down', () => {
    throw new DependencyUnavailableError('Redis');
  });
  router.get('/koa-error', (ctx) => ctx.throw(400, 'internal detail'));
  const logger = createLogger('info', 'test', { write: (line: string) => logLines.push(line) });
  server = await listen(apiApp({ logger }, router).callback(), '127.0.0.1', 0);
});
after(() => server.close());

async function get(path: string, init?: RequestInit) {
  const response = await fetch(`${server.origin}${path}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: a test reads the body freely
  return { response, body: (await response.json()) as any };
}

describe('fail-closed error handling', () => {
  test('an unexpected error is a 500 Problem that reveals nothing', async () => {
    const { response, body } = await get('/crash');
    assert.equal(response.status, 500);
    assert.equal(body.code, 'INTERNAL_ERROR');
    assert.ok(!JSON.stringify(body).includes('hunter2'));
    assert.match(body.detail, /request_id/);
    assert.ok(logLines.some((line) => line.includes(body.request_id) && line.includes('unhandled error')));
  });

  test('an unreachable backing store is a 503 Problem', async () => {
    const { response, body } = await get('/store-down');
    assert.equal(response.status, 503);
    assert.equal(body.code, 'SERVICE_UNAVAILABLE');
  });

  test("Koa's own client errors keep their status with a generic detail", async () => {
    const { response, body } = await get('/koa-error');
    assert.equal(response.status, 400);
    assert.equal(body.code, 'MALFORMED_REQUEST');
    assert.ok(!body.detail.includes('internal detail'));
  });
});

describe('logging', () => {
  test('redacts credentials wherever they appear in a logged object', () => {
    const lines: string[] = [];
    const logger = createLogger('info', 'test', { write: (line: string) => lines.push(line) });
    logger.info(
      {
        req: { headers: { authorization: 'Bearer abc', cookie: 's=1' } },
        form: { client_secret: 'shh', code: 'sva_x', grant_type: 'authorization_code' },
      },
      'token request',
    );
    assert.equal(lines.length, 1, 'the line is written');
    const line = lines[0] as string;
    for (const secret of ['Bearer abc', 's=1', 'shh', 'sva_x']) assert.ok(!line.includes(secret), secret);
    const logged = JSON.parse(line);
    assert.equal(logged.msg, 'token request');
    assert.deepEqual(logged.req.headers, { authorization: '[redacted]', cookie: '[redacted]' });
    assert.deepEqual(logged.form, {
      client_secret: '[redacted]',
      code: '[redacted]',
      grant_type: 'authorization_code',
    });
  });
});

describe('apiEnvelope', () => {
  const ready = readyJson({ ready: true, text: 'größer' }, 201);
  async function envelopeServer(level: 'info' | 'warn', lines: string[]) {
    const app = new Koa();
    app.silent = true;
    const router = new Router();
    router.get('/ok', (ctx) => {
      ctx.body = { ok: true };
    });
    router.get('/crash', () => {
      throw new Error('database password is hunter2');
    });
    router.post('/upload', (ctx) => {
      ctx.body = { ok: true };
    });
    router.get('/own-cache', (ctx) => {
      ctx.set('Cache-Control', 'max-age=60');
      ctx.body = { ok: true };
    });
    router.get('/ready', (ctx) => sendReady(ctx, ready));
    router.get('/ready-then-crash', (ctx) => {
      sendReady(ctx, ready);
      throw new Error('after the answer was chosen');
    });
    const logger = createLogger(level, 'test', { write: (line: string) => lines.push(line) });
    app
      .use(apiEnvelope(logger, { maxBodyBytes: 1024 }))
      .use(router.routes())
      .use(notFound());
    return listen(app.callback(), '127.0.0.1', 0);
  }

  test('sets the common and security headers, renders errors as Problems, writes ready answers and logs one line per request', async () => {
    const lines: string[] = [];
    const running = await envelopeServer('info', lines);
    try {
      const ok = await fetch(`${running.origin}/ok`);
      assert.equal(ok.status, 200);
      assert.match(ok.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
      assert.equal(ok.headers.get('x-service-api-version'), '1.0');
      assert.equal(ok.headers.get('cache-control'), 'no-store');
      assert.equal(ok.headers.get('x-frame-options'), 'DENY');
      assert.equal(ok.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'");

      const crash = await fetch(`${running.origin}/crash`);
      const problem = (await crash.json()) as { code: string; request_id: string };
      assert.equal(crash.status, 500);
      assert.equal(problem.code, 'INTERNAL_ERROR');
      assert.equal(crash.headers.get('x-request-id'), problem.request_id);

      const upload = await fetch(`${running.origin}/upload`, { method: 'POST', body: 'x'.repeat(2048) });
      assert.equal(upload.status, 413);
      assert.equal(((await upload.json()) as { code: string }).code, 'PAYLOAD_TOO_LARGE');

      const readyAnswer = await fetch(`${running.origin}/ready`);
      assert.equal(readyAnswer.status, 201);
      assert.equal(readyAnswer.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(readyAnswer.headers.get('content-length'), String(ready.body.length));
      assert.match(readyAnswer.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
      assert.notEqual(readyAnswer.headers.get('x-request-id'), ok.headers.get('x-request-id'));
      assert.equal(readyAnswer.headers.get('cache-control'), 'no-store');
      assert.equal(readyAnswer.headers.get('referrer-policy'), 'no-referrer');
      assert.deepEqual(await readyAnswer.json(), { ready: true, text: 'größer' });

      const head = await fetch(`${running.origin}/ready`, { method: 'HEAD' });
      assert.equal(head.status, 201);
      assert.equal(head.headers.get('content-length'), String(ready.body.length));
      assert.equal(await head.text(), '');

      const late = await fetch(`${running.origin}/ready-then-crash`);
      assert.equal(late.status, 500);
      assert.equal(((await late.json()) as { code: string }).code, 'INTERNAL_ERROR');

      const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
      assert.deepEqual(
        requests.map((entry) => [entry.path, entry.status]),
        [
          ['/ok', 200],
          ['/crash', 500],
          ['/upload', 413],
          ['/ready', 201],
          ['/ready', 201],
          ['/ready-then-crash', 500],
        ],
      );
    } finally {
      await running.close();
    }
  });

  test("a handler's own value of a common header stands", async () => {
    const running = await envelopeServer('warn', []);
    try {
      const response = await fetch(`${running.origin}/own-cache`);
      assert.equal(response.headers.get('cache-control'), 'max-age=60');
      assert.equal(response.headers.get('x-service-api-version'), '1.0');
    } finally {
      await running.close();
    }
  });

  test('a body announced larger than the limit is refused with 413 before it is read', async () => {
    const running = await envelopeServer('warn', []);
    const upload = (bytes: number) => fetch(`${running.origin}/upload`, { method: 'POST', body: 'x'.repeat(bytes) });
    try {
      const response = await upload(2048);
      const body = (await response.json()) as { code: string };
      assert.equal(response.status, 413);
      assert.equal(body.code, 'PAYLOAD_TOO_LARGE');
      assert.equal((await upload(10)).status, 200);
    } finally {
      await running.close();
    }
  });

  test('logs no request lines when info is not logged', async () => {
    const lines: string[] = [];
    const running = await envelopeServer('warn', lines);
    try {
      assert.equal((await fetch(`${running.origin}/ok`)).status, 200);
      assert.equal(lines.filter((line) => line.includes('"msg":"request"')).length, 0);
    } finally {
      await running.close();
    }
  });
});
