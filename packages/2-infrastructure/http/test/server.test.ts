// Draining a server: requests in flight are answered (with Connection: close), idle keep-alive
// connections close at once, nothing new is accepted, and past the timeout what remains is cut and
// counted.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listen } from '../src/index.ts';

/** One GET on a keep-alive agent: the status, the Connection header and the body. */
function get(url: string, agent: Agent) {
  return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    request(url, { agent }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** Answers /slow after `ms`, everything else at once. */
const slowApp = (ms: number) => (incoming: { url?: string }, outgoing: import('node:http').ServerResponse) => {
  const answer = () => outgoing.writeHead(200, { 'content-type': 'text/plain' }).end('done');
  if (incoming.url === '/slow') setTimeout(answer, ms);
  else answer();
};

test('a drain answers the requests in flight, closing their connections after, and accepts nothing new', async () => {
  const running = await listen(slowApp(300), '127.0.0.1', 0);
  const agent = new Agent({ keepAlive: true });
  const idle = await get(`${running.origin}/fast`, agent);
  assert.equal(idle.connection, 'keep-alive', 'a keep-alive connection is open and idle');
  const inFlight = get(`${running.origin}/slow`, new Agent({ keepAlive: true }));
  await sleep(50);
  const drained = running.close();
  const answered = await inFlight;
  assert.deepEqual(answered, { status: 200, connection: 'close', body: 'done' });
  assert.deepEqual(await drained, { cut: 0 });
  await assert.rejects(get(`${running.origin}/fast`, new Agent()), { code: 'ECONNREFUSED' });
  agent.destroy();
});

test('past its timeout a drain cuts what remains and says how many', async () => {
  const running = await listen(slowApp(5_000), '127.0.0.1', 0);
  const stuck = get(`${running.origin}/slow`, new Agent()).catch((error: NodeJS.ErrnoException) => error.code);
  await sleep(50);
  const started = Date.now();
  assert.deepEqual(await running.close({ timeoutMs: 200 }), { cut: 1 });
  assert.ok(Date.now() - started < 2_000, 'the timeout bounds the drain');
  assert.equal(await stuck, 'ECONNRESET');
});

test('wound down, a server still answers, each answer closing its connection, so a proxy stops reusing it', async () => {
  const running = await listen(slowApp(300), '127.0.0.1', 0);
  const agent = new Agent({ keepAlive: true });
  assert.equal((await get(`${running.origin}/fast`, agent)).connection, 'keep-alive');
  const inFlight = get(`${running.origin}/slow`, new Agent({ keepAlive: true }));
  await sleep(50);
  running.windDown();
  assert.deepEqual(await get(`${running.origin}/fast`, agent), { status: 200, connection: 'close', body: 'done' });
  assert.equal((await inFlight).connection, 'close', 'an answer not yet begun closes too');
  assert.equal((await get(`${running.origin}/fast`, new Agent())).status, 200, 'new connections are still accepted');
  assert.deepEqual(await running.close(), { cut: 0 });
  agent.destroy();
});
