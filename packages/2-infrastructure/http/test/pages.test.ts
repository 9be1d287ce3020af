import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import {
  createLogger,
  html,
  listen,
  ProblemError,
  pageApp,
  type RenderErrorPage,
  type RunningServer,
  sendPage,
} from '../src/index.ts';

const formAction =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
const noFormAction = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

const errorPage: RenderErrorPage = ({ title, message, problem }) =>
  html`<h1>${title}</h1><p role="alert">${message}</p><p>code: ${problem?.code ?? 'none'}</p>`;

interface LogLine {
  msg: string;
  request_id: string;
  path?: string;
  status?: number;
}

let server: RunningServer;
const lines: LogLine[] = [];
before(async () => {
  const logger = createLogger('info', 'test', { write: (line: string) => lines.push(JSON.parse(line)) });
  const { app, route } = pageApp({ logger, errorPage });
  route('/page', { GET: (ctx) => sendPage(ctx, 200, html`<p>request ${ctx.state.requestId}</p>`) });
  route('/form', {
    GET: (ctx) => sendPage(ctx, 200, html`<form method="post"></form>`),
    POST: (ctx) => ctx.redirect('https://app.example.test/callback'),
  });
  route('/consent', { GET: (ctx) => sendPage(ctx, 200, html`<p>consent</p>`) }, { formAction: false });
  route('/crash', {
    GET: () => {
      throw new Error('database password is hunter2');
    },
  });
  route('/store-down', {
    GET: () => {
      throw new DependencyUnavailableError('Redis');
    },
  });
  route('/refused', {
    GET: () => {
      throw new ProblemError('CSRF_FAILED', 'This form has expired.');
    },
  });
  server = await listen(app.callback(), '127.0.0.1', 0);
});
after(() => server.close());

async function request(method: string, path: string) {
  const response = await fetch(`${server.origin}${path}`, { method, redirect: 'manual' });
  return { response, text: await response.text(), requestId: response.headers.get('x-request-id') ?? '' };
}

function assertPageHeaders(response: Response, csp = formAction) {
  assert.match(response.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  assert.equal(response.headers.get('content-security-policy'), csp);
  assert.equal(response.headers.get('x-frame-options'), 'DENY');
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(response.headers.get('cache-control'), 'no-store');
}

describe('the page stack', () => {
  test("every answer has a request id, the page headers and one log line with the answer's id", async () => {
    const { response, text, requestId } = await request('GET', '/page');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assertPageHeaders(response);
    assert.equal(text, `<p>request ${requestId}</p>`, 'the page sees the id it is answered with');
    const logged = lines.filter((line) => line.request_id === requestId);
    assert.deepEqual(
      logged.map(({ msg, path, status }) => ({ msg, path, status })),
      [{ msg: 'request', path: '/page', status: 200 }],
    );
  });

  test('a redirect carries the headers too; a route may leave out form-action', async () => {
    const redirect = await request('POST', '/form');
    assert.equal(redirect.response.status, 302);
    assertPageHeaders(redirect.response);
    const consent = await request('GET', '/consent');
    assertPageHeaders(consent.response, noFormAction);
  });

  test('an unknown path is a 404 page', async () => {
    for (const method of ['GET', 'POST']) {
      const { response, text } = await request(method, '/nowhere');
      assert.equal(response.status, 404);
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
      assertPageHeaders(response);
      assert.match(text, /<h1>Not found<\/h1><p role="alert">There is no page here\.<\/p>/);
    }
    assert.equal((await request('GET', '/PAGE')).response.status, 404, 'paths are exact');
    assert.equal((await request('GET', '/page/')).response.status, 404, 'no trailing slash');
  });

  test('a wrong method on a known path is a 405 page with Allow; GET answers HEAD', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/form', 'GET, HEAD, POST'],
      ['DELETE', '/page', 'GET, HEAD'],
      ['OPTIONS', '/page', 'GET, HEAD'],
      ['POST', '/consent', 'GET, HEAD'],
    ] as const) {
      const { response, text } = await request(method, path);
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers.get('allow'), allow);
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
      assertPageHeaders(response);
      assert.match(text, /code: METHOD_NOT_ALLOWED/);
    }
    assert.equal((await request('HEAD', '/page')).response.status, 200);
  });

  test('a refusal shows its detail and status', async () => {
    const { response, text } = await request('GET', '/refused');
    assert.equal(response.status, 403);
    assertPageHeaders(response);
    assert.match(text, /This form has expired\./);
    assert.match(text, /code: CSRF_FAILED/);
  });

  test("a failure's page gives the logged request id as its reference and nothing internal", async () => {
    const { response, text, requestId } = await request('GET', '/crash');
    assert.equal(response.status, 500);
    assertPageHeaders(response);
    assert.ok(text.includes(`An internal error occurred. Reference: ${requestId}.`), text);
    assert.ok(!text.includes('hunter2'));
    const logged = lines.filter((line) => line.request_id === requestId).map((line) => line.msg);
    assert.deepEqual(logged, ['page error', 'request']);
  });

  test('a backing store that fails is a 503 page with the reference', async () => {
    const { response, text, requestId } = await request('GET', '/store-down');
    assert.equal(response.status, 503);
    assert.ok(text.includes(`The service is temporarily unavailable. Try again shortly. Reference: ${requestId}.`));
    const logged = lines.filter((line) => line.request_id === requestId).map((line) => line.msg);
    assert.deepEqual(logged, ['Redis is unavailable: answered 503', 'request'], 'the line names what failed');
  });
});

describe('a page app with a guard', () => {
  test('the guard runs before every route, known or not, and its refusal is a page', async () => {
    const { app, route } = pageApp({
      logger: createLogger('silent', 'test'),
      errorPage,
      guard: () => {
        throw new ProblemError('FEATURE_DISABLED', 'Switched off here.');
      },
    });
    route('/page', { GET: (ctx) => sendPage(ctx, 200, html`<p>never</p>`) });
    const guarded = await listen(app.callback(), '127.0.0.1', 0);
    try {
      for (const path of ['/page', '/nowhere']) {
        const response = await fetch(`${guarded.origin}${path}`);
        assert.equal(response.status, 503);
        assertPageHeaders(response);
        assert.match(await response.text(), /Switched off here\..*code: FEATURE_DISABLED/);
      }
    } finally {
      await guarded.close();
    }
  });

  test('takes keys and proxy', () => {
    const { app } = pageApp({
      logger: createLogger('silent', 'test'),
      errorPage,
      keys: ['k'],
      forwarded: { secure: true },
    });
    assert.deepEqual(app.keys, ['k']);
    assert.equal(app.proxy, true);
    assert.equal(app.silent, true);
  });
});
