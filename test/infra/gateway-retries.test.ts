// What the gateway does with a request a replica never read. Open-source nginx does not read
// /readyz, so it may open a connection to a draining replica in the very instant that replica
// closes its listener; the kernel then resets the connection with the request unread. Here a
// stand-in replica does the same to every request (a reset after the request arrived), listed
// first so that nginx's round robin sends it the first request; a real one beside it answers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, type RunningGateway, startGateway } from '@devplat/topology';

interface Stand {
  port: number;
  /** What reached it: method and path of each request. */
  seen: string[];
  server: Server | TcpServer;
}

/** A replica that resets every connection once a request has arrived on it, never answering. */
async function resettingReplica(): Promise<Stand> {
  const seen: string[] = [];
  const server = createTcpServer((socket) => {
    socket.once('data', (chunk) => {
      seen.push(chunk.toString('latin1').split(' ', 2).join(' '));
      socket.resetAndDestroy();
    });
    socket.on('error', () => {});
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, seen, server };
}

/** A replica that answers every request 200 with what it received. */
async function answeringReplica(): Promise<Stand> {
  const seen: string[] = [];
  const server = createHttpServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume().on('end', () => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ answeredBy: 'the answering replica' }));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, seen, server };
}

describe('the gateway passes on a request a replica reset unread', () => {
  let runtimeDir: string;
  let gateway: RunningGateway;
  const stands: Record<'auth' | 'api' | 'playerClient', { resetting: Stand; answering: Stand }> = {} as never;
  const ports = { base: 0, playerClient: 0 };
  const logs: string[] = [];

  before(async () => {
    for (const name of ['auth', 'api', 'playerClient'] as const) {
      stands[name] = { resetting: await resettingReplica(), answering: await answeringReplica() };
    }
    ports.base = await freePort();
    ports.playerClient = await freePort();
    runtimeDir = mkdtempSync(join(tmpdir(), 'devplat-gateway-retries-'));
    const pair = (name: keyof typeof stands) =>
      [stands[name].resetting, stands[name].answering].map((stand) => `127.0.0.1:${stand.port}`);
    gateway = await startGateway(
      {
        runtimeDir,
        // One worker: its round robin is the one that sends the first request to the first replica.
        workerProcesses: 1,
        base: { listen: [`127.0.0.1:${ports.base}`], host: '127.0.0.1' },
        auth: pair('auth'),
        api: pair('api'),
        playerClient: { listen: [`127.0.0.2:${ports.playerClient}`], host: '127.0.0.2', servers: pair('playerClient') },
        console: null,
      },
      (line) => logs.push(line),
    );
  });

  after(async () => {
    await gateway?.stop();
    for (const { resetting, answering } of Object.values(stands)) {
      resetting.server.close();
      answering.server.close();
    }
    if (runtimeDir) rmSync(runtimeDir, { recursive: true, force: true });
  });

  const post = (url: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });

  test("a POST to auth's token endpoint: passed on to the next auth replica, answered there", async () => {
    const answer = await post(`http://127.0.0.1:${ports.base}/developer/v1/oauth/token`);
    const text = await answer.text();
    assert.equal(answer.status, 200, `${text}\n${logs.join('\n')}`);
    assert.deepEqual(JSON.parse(text), { answeredBy: 'the answering replica' });
    assert.deepEqual(stands.auth.resetting.seen, ['POST /developer/v1/oauth/token'], 'the reset replica got it first');
    assert.deepEqual(stands.auth.answering.seen, ['POST /developer/v1/oauth/token']);
  });

  test("a POST to the player client (the consent decision): passed on to the next auth replica's", async () => {
    const answer = await post(`http://127.0.0.2:${ports.playerClient}/interaction/abc/confirm`);
    assert.equal(answer.status, 200, logs.join('\n'));
    assert.deepEqual(stands.playerClient.resetting.seen, ['POST /interaction/abc/confirm']);
    assert.deepEqual(stands.playerClient.answering.seen, ['POST /interaction/abc/confirm']);
  });

  test("a GET to the api: passed on; a POST to the api (which takes none) is not, and gets the contract's 503", async () => {
    const cities = await fetch(`http://127.0.0.1:${ports.base}/developer/v1/cities`);
    assert.equal(cities.status, 200);
    assert.deepEqual(stands.api.resetting.seen, ['GET /developer/v1/cities']);
    // The reset replica is never rested (max_fails=0): round robin reaches it within two POSTs.
    let answeredPosts = 0;
    let refused: Response | undefined;
    for (let attempt = 0; attempt < 4 && !refused; attempt++) {
      const answer = await post(`http://127.0.0.1:${ports.base}/developer/v1/cities`);
      if (answer.status === 200) answeredPosts++;
      else refused = answer;
    }
    assert.ok(refused, 'no POST reached the reset replica');
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await refused.json()) as { code: string }).code, 'SERVICE_UNAVAILABLE');
    assert.ok(stands.api.resetting.seen.includes('POST /developer/v1/cities'));
    assert.equal(
      stands.api.answering.seen.filter((line) => line === 'POST /developer/v1/cities').length,
      answeredPosts,
      'the reset POST was not sent again',
    );
  });
});
