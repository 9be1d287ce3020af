// npm run topology as a person runs it: one command prints the addresses, every one answers
// through the gateway, and Ctrl-C stops everything it started.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { realPostgresUrl } from '@devplat/test/database';

import { needsStores, startTopologyCommand } from '@devplat/test/topology';
import { alive, dropDatabase } from '@devplat/topology';

const database = `devplat_topology_${randomBytes(4).toString('hex')}`;
after(() => realPostgresUrl && dropDatabase(realPostgresUrl, database));

test('npm run topology prints its addresses, each answers through nginx, and Ctrl-C stops every process it started', {
  skip: needsStores,
}, async (t) => {
  const started = await startTopologyCommand(database);
  const { port } = started;
  const output = started.output();
  const urls = {
    api: /Public API\s+(\S+)/.exec(output)?.[1],
    player: /Player client\s+(\S+)/.exec(output)?.[1],
    console: /Console\s+(\S+)/.exec(output)?.[1],
    admin: /Admin API\s+(\S+)/.exec(output)?.[1],
  };
  assert.equal(urls.api, `http://127.0.0.1:${port}/developer/v1`);
  assert.equal(urls.player, `http://127.0.0.2:${port + 1}`);
  assert.equal(urls.console, `http://127.0.0.3:${port + 2}`);
  const pids = [...output.matchAll(/pid (\d+)/g)].map((match) => Number(match[1]));
  assert.equal(pids.length, 10, 'nginx, 2 auth, 2 api, 2 workers, the console, the mock and the admin API');
  const nginxWorkers = (/workers ([\d, ]+)\)/.exec(output)?.[1] ?? '').split(', ').map(Number);
  assert.ok(
    nginxWorkers.every((pid) => pid > 0 && alive(pid)),
    `nginx's workers are printed:\n${output}`,
  );
  assert.equal((await fetch(`${urls.api}/capabilities`)).status, 200);
  assert.equal((await fetch(`${urls.api}/.well-known/oauth-authorization-server`)).status, 200);
  assert.equal((await fetch(`${urls.player}/signin`)).status, 200);
  assert.equal((await fetch(`${urls.console}/signin`)).status, 200);
  // The admin API on a loopback port of its own, beside the gateway.
  assert.match(urls.admin ?? '', /^http:\/\/127\.0\.0\.1:\d+\/admin\/v1$/);
  assert.equal((await fetch(`${urls.admin}/openapi.yaml`)).status, 200);

  const interrupted = performance.now();
  process.kill(-(started.child.pid as number), 'SIGINT'); // Ctrl-C reaches the terminal's process group
  assert.equal(await new Promise((resolve) => started.child.once('exit', resolve)), 0);
  t.diagnostic(`stopped ${Math.round(performance.now() - interrupted)} ms after the Ctrl-C`);
  assert.match(started.output(), /stopped\n$/);
  assert.doesNotMatch(started.output(), /second interrupt/, 'each process drained once');
  assert.deepEqual(
    [...pids, ...nginxWorkers].filter((pid) => alive(pid)),
    [],
    "no process it started is left, nginx's workers included",
  );
  await assert.rejects(fetch(`${urls.api}/capabilities`), 'nothing listens on its port');
});
