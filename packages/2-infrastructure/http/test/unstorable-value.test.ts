// A value the database cannot store that reached its boundary (UnstorableValueError: no door refused
// it first) is the caller's bad value on both stacks: 400 MALFORMED_REQUEST as a Problem or a page,
// logged as a warning that names the kind of value, never an error and never a 500.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UnstorableValueError } from '@devplat/errors';
import Router from '@koa/router';
import { apiApp, createLogger, html, listen, operation, pageApp, type RunningServer } from '../src/index.ts';

const lines: Record<string, unknown>[] = [];
const servers: RunningServer[] = [];
let api: string;
let pages: string;

before(async () => {
  const logger = createLogger('info', 'test', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const router = new Router();
  const unstorable = () => {
    throw new UnstorableValueError('instant');
  };
  operation(router, '/listing', { GET: unstorable });
  const site = pageApp({ logger, errorPage: ({ title, message }) => html`<h1>${title}</h1><p>${message}</p>` });
  site.route('/page', { GET: unstorable });
  servers.push(await listen(apiApp({ logger }, router).callback(), '127.0.0.1', 0));
  servers.push(await listen(site.app.callback(), '127.0.0.1', 0));
  [api, pages] = servers.map((server) => server.origin) as [string, string];
});
after(() => Promise.all(servers.map((server) => server.close())));

const detail =
  'The request holds a value the platform cannot take: a time before the year 1 or after 9999 cannot be stored.';

/** The lines logged for a request, but its own request line. */
const loggedFor = (requestId: string | null) =>
  lines.filter((line) => line.request_id === requestId && line.msg !== 'request');

test('an API answers a 400 Problem and logs a warning', async () => {
  const response = await fetch(`${api}/listing`);
  const body = (await response.json()) as { code: string; detail: string };
  assert.equal(response.status, 400);
  assert.deepEqual([body.code, body.detail], ['MALFORMED_REQUEST', detail]);
  assert.deepEqual(
    loggedFor(response.headers.get('x-request-id')).map((line) => [line.level, line.msg, line.kind]),
    [[40, 'unstorable value reached the database boundary', 'instant']],
  );
});

test('a page site answers a 400 page and logs a warning', async () => {
  const response = await fetch(`${pages}/page`);
  assert.equal(response.status, 400);
  assert.match(await response.text(), new RegExp(`<p>${detail.replace(/[.()]/g, '\\$&')}</p>`));
  assert.deepEqual(
    loggedFor(response.headers.get('x-request-id')).map((line) => [line.level, line.msg, line.kind]),
    [[40, 'unstorable value reached the database boundary', 'instant']],
  );
});
