// A request whose client closes the connection before its body arrived: an API and a page app log
// it once, at info, as aborted with status 499, and count it as a 499, never as a 500.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createMetrics } from '@devplat/metrics';
import Router from '@koa/router';
import {
  apiApp,
  createLogger,
  createServiceLoggers,
  html,
  listen,
  operation,
  pageApp,
  type RequestObserver,
  type RunningServer,
  readBody,
  readForm,
  requestObserver,
  sendPage,
} from '../src/index.ts';

interface LogLine {
  level: number;
  msg: string;
  request_id?: string;
  path?: string;
  status?: number;
  aborted?: boolean;
  error?: string;
}

const lines: LogLine[] = [];
const metrics = createMetrics();
const answered = new EventEmitter();
let api: RunningServer;
let pages: RunningServer;

/** Observes like the services do, and says when a request is done (logged and counted). */
function observing(app: string): RequestObserver {
  const record = requestObserver(metrics, app);
  return (ctx, seconds) => {
    record(ctx, seconds);
    answered.emit('answered', ctx.path);
  };
}

/** Sends `head` and `body` on a connection of its own, then closes it. */
async function sendAndClose(origin: string, head: string, body: string): Promise<void> {
  const { hostname, port } = new URL(origin);
  const done = once(answered, 'answered');
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(`${head}\r\nHost: ${hostname}\r\n\r\n${body}`, () => socket.destroy());
  await done;
}

const cutOff = (origin: string, path: string, type: string) =>
  sendAndClose(origin, `POST ${path} HTTP/1.1\r\nContent-Type: ${type}\r\nContent-Length: 40`, 'name=a');

const lineFor = (path: string) => {
  const found = lines.filter((line) => line.path === path);
  assert.equal(found.length, 1, JSON.stringify(found));
  const [line] = found as [LogLine];
  assert.deepEqual(
    lines.filter((other) => other.request_id === line.request_id),
    [line],
    'no other line about the request',
  );
  return line;
};

const countOf = async (app: string, status: string) =>
  (await metrics.requests.get()).values.find(
    (value) =>
      value.metricName === 'devplat_http_request_duration_seconds_count' &&
      value.labels.app === app &&
      value.labels.status === status,
  )?.value ?? 0;

before(async () => {
  const logger = createLogger('info', 'test', { write: (line: string) => lines.push(JSON.parse(line)) });
  const router = new Router({ strict: true, sensitive: true });
  operation(router, '/json', {
    POST: async (ctx) => {
      ctx.body = { length: (await readBody(ctx, 64)).length };
    },
  });
  api = await listen(apiApp({ logger, observe: observing('api') }, router).callback(), '127.0.0.1', 0);
  const { app, route } = pageApp({
    logger,
    errorPage: ({ title }) => html`<h1>${title}</h1>`,
    observe: observing('pages'),
  });
  route('/form', { POST: async (ctx) => sendPage(ctx, 200, html`<p>${(await readForm(ctx)).name ?? ''}</p>`) });
  pages = await listen(app.callback(), '127.0.0.1', 0);
});
after(() => Promise.all([api.close(), pages.close()]));

describe('a body cut off by its client', () => {
  test('an API logs it once, at info, as aborted (499), and counts it as a 499', async () => {
    await cutOff(api.origin, '/json', 'application/json');
    const line = lineFor('/json');
    assert.equal(line.level, 30);
    assert.equal(line.status, 499);
    assert.equal(line.aborted, true);
    assert.equal(line.error, undefined);
    assert.equal(await countOf('api', '499'), 1);
    assert.equal(await countOf('api', '500'), 0);
  });

  test('a page app logs it once, at info, as aborted (499), and counts it as a 499', async () => {
    await cutOff(pages.origin, '/form', 'application/x-www-form-urlencoded');
    const line = lineFor('/form');
    assert.equal(line.level, 30);
    assert.equal(line.status, 499);
    assert.equal(line.aborted, true);
    assert.equal(await countOf('pages', '499'), 1);
    assert.equal(await countOf('pages', '500'), 0);
  });

  test('a body over the limit stays a 413: the server, not the client, stopped reading it', async () => {
    const before = await countOf('api', '413');
    const chunk = 'x'.repeat(100);
    await sendAndClose(
      api.origin,
      'POST /json?large HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked',
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    );
    assert.equal(await countOf('api', '413'), before + 1);
    assert.equal(lines.filter((line) => line.status === 499).length, 2, 'only the two cut-off requests');
  });
});

test('the loggers of one process name each service once, as a service alone does', () => {
  const written: string[] = [];
  const loggerFor = createServiceLoggers('info', { write: (line: string) => written.push(line) });
  loggerFor('platform').info('up');
  loggerFor('api').child({ part: 'x' }).info('up');
  createLogger('info', 'api', { write: (line: string) => written.push(line) }).info('up');
  const [platform, child, alone] = written.map((line) => line.replace(/"time":\d+,/, ''));
  assert.equal(platform, '{"level":30,"service":"platform","name":"platform","msg":"up"}\n');
  assert.equal(child, '{"level":30,"service":"api","name":"api","part":"x","msg":"up"}\n');
  assert.equal(alone, '{"level":30,"service":"api","name":"api","msg":"up"}\n');
});
