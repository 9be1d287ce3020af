// CPU limits on the topology's processes, as Kubernetes gives them: a replica under a small quota
// is throttled by the kernel under load and still answers every request; the topology command takes replica
// counts and limits per service, prints each process's limit, and on stop how often each was
// throttled, and leaves no control group behind. The scaling figures are bench:scale's, not a test's.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { realPostgresUrl } from '@devplat/test/database';
import { runProcess } from '@devplat/test/process';
import { needsStores, startTestTopology, startTopologyCommand } from '@devplat/test/topology';
import { alive, cpuController, dropDatabase, throttlingOf } from '@devplat/topology';

const database = `devplat_topology_${randomBytes(4).toString('hex')}`;
after(() => realPostgresUrl && dropDatabase(realPostgresUrl, database));

/** Whether this machine lets the tests set CPU limits (root, a cgroup CPU controller): CI's does. */
function limitsHere(): string | false {
  try {
    cpuController().close();
    return false;
  } catch (error) {
    return (error as Error).message;
  }
}
const cannotLimit = needsStores || limitsHere();

test('cpu.stat is read as v1 writes it (ns) and as v2 writes it (µs)', () => {
  assert.deepEqual(throttlingOf('nr_periods 740\nnr_throttled 633\nthrottled_time 12400000000\nnr_bursts 0\n'), {
    periods: 740,
    throttled: 633,
    stalledSeconds: 12.4,
  });
  assert.deepEqual(throttlingOf('usage_usec 9\nnr_periods 10\nnr_throttled 4\nthrottled_usec 250000\n'), {
    periods: 10,
    throttled: 4,
    stalledSeconds: 0.25,
  });
});

test('a replica under a 0.1 CPU limit is throttled by the kernel under load and still answers every request', {
  skip: cannotLimit,
}, async (t) => {
  const topology = await startTestTopology({}, { auth: 1, api: 1, worker: 0, console: 0 }, undefined, undefined, {
    cpuLimits: { api: 0.1 },
  });
  t.after(() => topology.close());
  const [api] = topology.of('api');
  const group = api?.cpuLimit?.group as string;
  assert.match(topology.cpuLimits ?? '', /^cgroup v[12] \(/);
  const quota = existsSync(join(group, 'cpu.max'))
    ? readFileSync(join(group, 'cpu.max'), 'utf8').trim()
    : `${readFileSync(join(group, 'cpu.cfs_quota_us'), 'utf8').trim()} ${readFileSync(join(group, 'cpu.cfs_period_us'), 'utf8').trim()}`;
  assert.equal(quota, '10000 100000', 'a tenth of each 100 ms period, as a Kubernetes limit of 100m');
  assert.ok(
    readFileSync(join(group, 'cgroup.procs'), 'utf8').split('\n').includes(String(api?.pid())),
    'the replica runs in its group',
  );
  assert.deepEqual(
    topology.of('auth').map((each) => each.cpuLimit),
    [null],
    'auth was given no limit',
  );

  // Start-up ran under the limit too (and was throttled): count from here. Calls, 40 at a time,
  // until the kernel has held the replica back in 5 more periods (bounded: 30 s).
  const throttledAt = () => topology.throttling()[0]?.throttled ?? 0;
  const before = throttledAt();
  const statuses = new Map<number, number>();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && throttledAt() < before + 5) {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => fetch(`${topology.base}/regions`).then((answer) => answer.status)),
    );
    for (const status of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const [throttling] = topology.throttling();
  t.diagnostic(
    `api-1: ${JSON.stringify(throttling)}, ${before} throttled periods at start; answers ${JSON.stringify([...statuses])}`,
  );
  assert.equal(throttling?.name, 'api-1');
  assert.ok((throttling?.throttled ?? 0) >= before + 5, 'the kernel throttled the replica under the load');
  assert.ok((throttling?.stalledSeconds ?? 0) > 0);
  assert.deepEqual([...statuses.keys()], [200], 'every request was answered');
});

test('npm run topology takes replicas and CPU limits per service, prints them, and on stop how often each was throttled', {
  skip: cannotLimit,
}, async () => {
  const started = await startTopologyCommand(database, [
    '--replicas',
    'auth=1,api=2,worker=0,console=0',
    '--cpu',
    'api=0.3,auth=0.5',
  ]);
  const output = started.output();
  assert.match(output, /1 auth, 2 api, 0 worker, 0 console; CPU limits through cgroup v[12] \(/);
  const limited = [...output.matchAll(/^ {2}(\S+)\s+pid (\d+).*CPU limit ([\d.]+)$/gm)].map((match) => [
    match[1],
    match[3],
  ]);
  assert.deepEqual(limited, [
    ['auth-1', '0.5'],
    ['api-1', '0.3'],
    ['api-2', '0.3'],
  ]);
  const pids = [...output.matchAll(/pid (\d+)/g)].map((match) => Number(match[1]));
  assert.equal((await fetch(`http://127.0.0.1:${started.port}/developer/v1/regions`)).status, 200);

  process.kill(-(started.child.pid as number), 'SIGINT');
  assert.equal(await new Promise((resolve) => started.child.once('exit', resolve)), 0);
  const report = started.output().slice(output.length);
  for (const [name, cpus] of limited)
    assert.match(
      report,
      new RegExp(`${name}\\s+${cpus} CPU, throttled in \\d+ of \\d+ periods \\([\\d.]+ s stalled\\)`),
    );
  assert.match(report, /stopped\n$/);
  assert.deepEqual(
    pids.filter((pid) => alive(pid)),
    [],
  );
  const groups = ['/sys/fs/cgroup/cpu/devplat-topology', '/sys/fs/cgroup/devplat-topology'].filter(existsSync);
  for (const parent of groups)
    assert.ok(!existsSync(join(parent, String(started.child.pid))), "the topology's control groups are removed");
});

test('npm run topology refuses a service it does not have, a count or a limit out of range, and says which', async () => {
  const refusals = [
    [['--cpu', 'db=0.2'], /--cpu takes service=value pairs .* \(got "db=0.2"\)/],
    [['--cpu', 'api=0'], /--cpu api must be a number of CPUs from 0\.01 to \d+ \(got "0"\)/],
    [['--replicas', 'api=0'], /--replicas api must be a whole number from 1 to 16 \(got "0"\)/],
    [['--replicas', 'auth=2,auth=3'], /--replicas names auth twice/],
  ] as const;
  for (const [flags, message] of refusals) {
    const { code, stderr } = await runProcess(process.execPath, ['infra/topology/src/main.ts', ...flags], {
      env: process.env,
    }).done;
    assert.equal(code, 64, flags.join(' '));
    assert.match(stderr, message);
  }
});
