// However npm run topology ends, nothing it started outlives it: a SIGKILL to its process group, a
// SIGKILL to its own process alone, or one of its processes crashing, which stops the rest and
// exits 1 naming that process.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, test } from 'node:test';
import { realPostgresUrl } from '@devplat/test/database';
import type { StartedProcess } from '@devplat/test/process';
import { needsStores, startTopologyCommand } from '@devplat/test/topology';
import { eventually } from '@devplat/test/webhook-receiver';
import { alive, dropDatabase, processTable } from '@devplat/topology';

const database = `devplat_topology_${randomBytes(4).toString('hex')}`;
const running: StartedProcess[] = [];
after(async () => {
  // A test that failed before its topology stopped leaves nothing behind either.
  for (const { child } of running) {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
  }
  if (realPostgresUrl) await dropDatabase(realPostgresUrl, database);
});

interface RunningTopology {
  started: StartedProcess;
  /** Its process group's id: the topology's own pid (started as the group's leader). */
  pgid: number;
  port: number;
  /** Every process it printed (nginx's workers included) and every other one in its process group. */
  pids: number[];
  /** The pid it printed for a process by name: `api-1`, `gateway`. */
  pidOf(name: string): number;
}

/** `npm run topology` in a process group of its own, as a terminal runs it. */
async function startCommand(): Promise<RunningTopology> {
  const started = await startTopologyCommand(database);
  const { port } = started;
  running.push(started);
  const output = started.output();
  const pgid = started.child.pid as number;
  const printed = [...output.matchAll(/pid (\d+)/g)].map((match) => Number(match[1]));
  assert.equal(printed.length, 10, 'nginx, 2 auth, 2 api, 2 workers, the console, the mock and the admin API');
  const workers = (/workers ([\d, ]+)\)/.exec(output)?.[1] ?? '').split(', ').map(Number);
  assert.ok(workers.length > 0 && workers.every((pid) => pid > 0), `nginx's workers are printed:\n${output}`);
  const group = processTable()
    .filter((entry) => entry.pgid === pgid)
    .map((entry) => entry.pid);
  const pids = [...new Set([...printed, ...workers, ...group])];
  assert.deepEqual(
    pids.filter((pid) => !group.includes(pid)),
    [],
    'every process it started is in its process group',
  );
  const pidOf = (name: string) => Number(new RegExp(`^ +${name} +pid (\\d+)`, 'm').exec(output)?.[1]);
  return { started, pgid, port, pids, pidOf };
}

/** Whether nothing listens on the port any more. */
const refuses = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });

/** Waits (at most 5 s) until none of its processes runs and its gateway port refuses; how long it took. */
async function assertNothingLeft({ pgid, pids, port }: RunningTopology, since: number): Promise<number> {
  const survivors = () => [
    ...new Set([
      ...pids.filter(alive),
      ...processTable()
        .filter((entry) => entry.pgid === pgid && alive(entry.pid))
        .map((entry) => entry.pid),
    ]),
  ];
  await eventually(async () => survivors().length === 0 && (await refuses(port)), 5_000).catch(() => {});
  assert.deepEqual(survivors(), [], 'no process it started is running');
  assert.ok(await refuses(port), `nothing listens on port ${port}`);
  return Math.round(performance.now() - since);
}

test('npm run topology killed with SIGKILL to its process group: every process it started is gone, nginx and its workers included', {
  skip: needsStores,
}, async (t) => {
  const topology = await startCommand();
  const killed = performance.now();
  process.kill(-topology.pgid, 'SIGKILL');
  t.diagnostic(
    `${topology.pids.length} processes gone ${await assertNothingLeft(topology, killed)} ms after the SIGKILL`,
  );
});

test('npm run topology killed with SIGKILL to its own process alone: its watchdog stops every process it started', {
  skip: needsStores,
}, async (t) => {
  const topology = await startCommand();
  const killed = performance.now();
  process.kill(topology.pgid, 'SIGKILL');
  t.diagnostic(
    `${topology.pids.length} processes gone ${await assertNothingLeft(topology, killed)} ms after the SIGKILL`,
  );
});

test('an api replica that dies stops the topology: it exits 1 naming the replica, and nothing it started is left', {
  skip: needsStores,
}, async (t) => {
  const topology = await startCommand();
  const killed = performance.now();
  process.kill(topology.pidOf('api-1'), 'SIGKILL');
  const { child } = topology.started;
  await eventually(() => child.exitCode !== null, 10_000);
  assert.equal(child.exitCode, 1, topology.started.output());
  assert.match(topology.started.output(), /topology: api-1 was killed by SIGKILL; stopping\n/);
  t.diagnostic(`the topology stopped ${await assertNothingLeft(topology, killed)} ms after api-1 died`);
});
