// A client that cuts its request body off, at every door of `npm start`, as an operator reads it:
// the process's own stdout log lines and its management /metrics. Such a request is logged once,
// at info, as an aborted request with status 499, never as a 500, and never counted as one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scrape } from '@devplat/test/metrics';
import { freePort, type StartedProcess, startProcess } from '@devplat/test/process';
import { eventually } from '@devplat/test/webhook-receiver';

const scratch = mkdtempSync(join(tmpdir(), 'devplat-aborted-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// The whole environment less what would steer the process under test: embedded defaults.
const baseEnv: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'info', MANAGEMENT_PORT: '0' };
for (const name of ['DATABASE_URL', 'REDIS_URL', 'PORT', 'BASE_URL', 'DATA_DIR', 'NODE_TEST_CONTEXT'])
  delete baseEnv[name];

interface LogLine {
  raw: string;
  level: number;
  service?: string;
  part?: string;
  msg?: string;
  method?: string;
  path?: string;
  status?: number;
  request_id?: string;
  aborted?: boolean;
  error?: string;
}

const formType = 'application/x-www-form-urlencoded';
const jsonType = 'application/json';

/**
 * Sends a POST that announces 5000 bytes (under every door's limit: none refuses it from its
 * headers), sends a few, and closes the connection.
 */
function cutOffPost(origin: string, path: string, contentType: string, partial: string): Promise<void> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: ${contentType}\r\n` +
          `Content-Length: 5000\r\n\r\n${partial}`,
        () => {
          socket.destroy();
          resolve();
        },
      );
    });
    socket.once('error', reject);
  });
}

/** Sends a chunked POST whose second chunk size is not hex; resolves with what came back. */
function malformedChunkedPost(origin: string, path: string, contentType: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: ${contentType}\r\n` +
          'Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\nzz\r\n',
      );
    });
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.once('close', () => resolve(received));
    socket.once('error', reject);
  });
}

describe('requests whose client goes away before the body arrives', () => {
  let platform: StartedProcess;
  let urls: Record<string, string>;

  const lines = (): LogLine[] =>
    platform
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((raw) => ({ raw, ...JSON.parse(raw) }));
  const requestLines = (service: string, path: string, part?: string) =>
    lines().filter(
      (line) =>
        line.msg === 'request' &&
        line.method === 'POST' &&
        line.service === service &&
        line.path === path &&
        line.part === part,
    );

  /** The one line logged for the one request sent to `path`, once it is there. */
  async function theLineFor(service: string, path: string, part?: string): Promise<LogLine> {
    const [line] = await eventually(() => {
      const found = requestLines(service, path, part);
      return found.length > 0 && found;
    });
    const same = lines().filter((other) => other.request_id === line?.request_id);
    assert.equal(same.length, 1, `one line for the request: ${same.map((other) => other.raw).join('\n')}`);
    return line as LogLine;
  }

  before(async () => {
    const env = {
      ...baseEnv,
      DATA_DIR: join(scratch, 'data'),
      BASE_URL: `http://127.0.0.1:${await freePort()}/developer/v1`,
      PLAYER_CLIENT_URL: `http://127.0.0.2:${await freePort()}`,
      CONSOLE_URL: `http://127.0.0.3:${await freePort()}`,
      AUTH_INTERNAL_URL: `http://127.0.0.1:${await freePort()}`,
      MOCK_BASE_URL: `http://127.0.0.1:${await freePort()}/developer/v1`,
    };
    platform = await startProcess(process.execPath, ['services/platform/src/main.ts'], env, /Press Ctrl-C/);
    urls = {};
    for (const [, name, url] of platform.output().matchAll(/^ {2}(\S.*?)\s+(http:\/\/\S+)$/gm)) {
      urls[name as string] = url as string;
    }
    assert.ok(urls.Management, platform.output());
  });

  after(async () => {
    assert.equal(await platform?.stop(), 0);
  });

  const base = () => new URL(urls['Public API'] as string);
  const doors = [
    { name: 'the console API', url: () => urls.Console, path: '/api/sessions', type: jsonType, service: 'console' },
    {
      name: "the console's sign-in page",
      url: () => urls.Console,
      path: '/signin',
      type: formType,
      service: 'console',
    },
    {
      name: "the console's register page",
      url: () => urls.Console,
      path: '/register',
      type: formType,
      service: 'console',
    },
    {
      name: "the player client's sign-in page",
      url: () => urls['Player client'],
      path: '/signin',
      type: formType,
      service: 'auth',
      part: 'player-client',
    },
    {
      name: 'the token endpoint',
      url: () => base().origin,
      path: '/developer/v1/oauth/token',
      type: formType,
      service: 'auth',
    },
    {
      name: 'the revocation endpoint',
      url: () => base().origin,
      path: '/developer/v1/oauth/revoke',
      type: formType,
      service: 'auth',
    },
  ];

  for (const door of doors) {
    test(`${door.name}: logged once, at info, as an aborted request (499)`, async () => {
      const partial = door.type === jsonType ? '{"email":"someone@example.test","pass' : 'email=someone%40exam';
      await cutOffPost(door.url() as string, door.path, door.type, partial);
      const line = await theLineFor(door.service, door.path, door.part);
      assert.equal(line.status, 499, line.raw);
      assert.equal(line.aborted, true, line.raw);
      assert.equal(line.error, undefined, 'no error code: nobody was answered');
      assert.ok(line.level < 50, `below error: ${line.raw}`);
    });
  }

  // Neither reads a body: they answer (405) before the client's cut reaches them.
  for (const [name, url, service] of [
    ['the api service', () => base().origin, 'api'],
    ['the contract mock', () => new URL(urls['Contract mock'] as string).origin, 'mock'],
  ] as const) {
    test(`${name}: answers from the headers alone, logged with that answer`, async () => {
      await cutOffPost(url(), '/developer/v1/regions', jsonType, '{"a":');
      const line = await theLineFor(service, '/developer/v1/regions');
      assert.ok(line.status === 405 || line.status === 499, line.raw);
      assert.ok(line.level < 50, line.raw);
    });
  }

  test('a malformed chunked body is answered 400 and logged as a client error', async () => {
    const answer = await malformedChunkedPost(urls.Console as string, '/api/accounts', jsonType);
    assert.match(answer, /^HTTP\/1\.1 400 /);
    const line = await theLineFor('console', '/api/accounts');
    assert.ok((line.status as number) >= 400 && (line.status as number) < 500, line.raw);
    assert.ok(line.level < 50, line.raw);
  });

  test('nothing was logged at error level, and every line names its service once', () => {
    const all = lines();
    assert.ok(all.length > 0);
    assert.deepEqual(
      all.filter((line) => line.level >= 50).map((line) => line.raw),
      [],
    );
    // JSON.parse keeps the last of two equal keys: count them in the text.
    for (const line of all) assert.equal(line.raw.match(/"service":/g)?.length, 1, line.raw);
    const request = all.find((line) => line.msg === 'request' && line.service === 'api');
    assert.match(request?.raw ?? '', /^\{"level":30,"time":\d+,"service":"api","name":"api","request_id":/);
  });

  test('/metrics counts the cut-off requests as 499, and no request as a 5xx', async () => {
    const samples = await scrape(urls.Management as string);
    const counts = [...samples].filter(([name]) => name.startsWith('devplat_http_request_duration_seconds_count{'));
    assert.deepEqual(
      counts.filter(([name]) => /status="5\d\d"/.test(name)).map(([name]) => name),
      [],
    );
    const aborted = counts.filter(([name]) => name.includes('status="499"'));
    assert.equal(
      aborted.reduce((sum, [, value]) => sum + value, 0),
      doors.length + 1,
      aborted.map(([name]) => name).join('\n'),
    );
  });
});
