// The open loop's generator against a real HTTP server: operations start at the rate whatever the
// answers' pace, a stall is charged to every operation due during it, and a run in which nothing
// was answered never reads as a latency.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { comparedAt, openLoop, p99Of, sendOnce } from './open-loop.ts';

let server: Server;
let url: string;
before(async () => {
  server = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = async () => void (await sendOnce(url, { method: 'GET', headers: {} }));

describe('the open loop', () => {
  test('starts every operation due at the rate and times each one', async () => {
    const round = await openLoop(200, 1, get);
    assert.equal(round.due, 200);
    assert.equal(round.failed, 0);
    assert.equal(round.latencies.whole?.length, 200);
  });

  test('a stall of the generator is charged to every operation due during it', async () => {
    // 300 ms of this process busy, 400 ms in: the operations due meanwhile go out late, and are
    // timed from when they were due, not from when they went out.
    const stall = setTimeout(() => {
      const until = performance.now() + 300;
      while (performance.now() < until);
    }, 400);
    const round = await openLoop(100, 1, get);
    clearTimeout(stall);
    const delayed = (round.latencies.whole ?? []).filter((latency) => latency >= 100);
    assert.ok(delayed.length >= 15, `${delayed.length} operations took 100 ms or more`);
    assert.ok(round.worstLateness >= 250, `the generator was at worst ${round.worstLateness} ms late`);
    assert.ok(p99Of(round.latencies.whole) >= 250);
  });

  test('a run in which nothing is answered counts every operation failed and no latency', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const round = await openLoop(50, 0.5, async () => void (await sendOnce(gone, { method: 'GET', headers: {} })));
    assert.equal(round.failed, 25);
    assert.equal(round.latencies.whole, undefined);
    assert.match(round.firstFailure ?? '', /ECONNREFUSED/);
  });
});

describe('the comparison against the floor', () => {
  const row = (name: string, latencies: number[], failed = 0) => ({ name, latencies, failed });
  const steady = (ms: number) => Array.from({ length: 100 }, () => ms);

  test('within twice the floor: the target line without a verdict', () => {
    assert.equal(
      comparedAt('100/s', row('platform', steady(15)), row('engine', steady(10))),
      'open loop at 100/s: platform p99 15 ms, engine p99 10 ms (1.5x) (target: at most 2x)',
    );
  });

  test('above twice the floor: not met', () => {
    assert.match(comparedAt('100/s', row('platform', steady(30)), row('engine', steady(10))), /\(3\.0x\).*not met/);
  });

  test('failures or no answers: NOT MET, whatever the ratio', () => {
    assert.match(
      comparedAt('100/s', row('platform', steady(10), 3), row('engine', steady(10))),
      /NOT MET, platform: 3 failed, 100 answered/,
    );
    assert.match(comparedAt('100/s', row('platform', [], 0), row('engine', steady(10))), /NOT MET, platform: 0 failed/);
  });
});
