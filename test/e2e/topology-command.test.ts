// npm run topology as a person runs it: one command prints the addresses, every one answers
// through the gateway, and Ctrl-C stops everything it started.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { realPostgresUrl } from '@devplat/test/database';
import { freePort, startProcess } from '@devplat/test/process';
import { needsStores } from '@devplat/test/topology';
import { dropDatabase } from '@devplat/topology';

const database = `devplat_topology_${randomBytes(4).toString('hex')}`;
after(() => realPostgresUrl && dropDatabase(realPostgresUrl, database));

/** Whether a process with this id still exists. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('npm run topology prints its addresses, each answers through nginx, and Ctrl-C stops every process it started', {
  skip: needsStores,
}, async () => {
  // Three ports in a row, as --port N takes them (nginx listens on N, N+1, N+2).
  let port = await freePort();
  while (port % 3 !== 0) port = await freePort();
  const started = await startProcess(
    process.execPath,
    ['infra/topology/src/main.ts', '--port', String(port)],
    { ...process.env, TOPOLOGY_DATABASE: database, TOPOLOGY_REDIS_DB: '3', NODE_TEST_CONTEXT: undefined },
    /Press Ctrl-C to stop\./,
    120_000,
  );
  const output = started.output();
  const urls = {
    api: /Public API\s+(\S+)/.exec(output)?.[1],
    player: /Player client\s+(\S+)/.exec(output)?.[1],
    console: /Console\s+(\S+)/.exec(output)?.[1],
  };
  assert.equal(urls.api, `http://127.0.0.1:${port}/developer/v1`);
  assert.equal(urls.player, `http://127.0.0.2:${port + 1}`);
  assert.equal(urls.console, `http://127.0.0.3:${port + 2}`);
  const pids = [...output.matchAll(/pid (\d+)/g)].map((match) => Number(match[1]));
  assert.equal(pids.length, 9, 'nginx, 2 auth, 2 api, 2 workers, the console and the mock');
  assert.equal((await fetch(`${urls.api}/capabilities`)).status, 200);
  assert.equal((await fetch(`${urls.api}/.well-known/oauth-authorization-server`)).status, 200);
  assert.equal((await fetch(`${urls.player}/signin`)).status, 200);
  assert.equal((await fetch(`${urls.console}/signin`)).status, 200);

  process.kill(-(started.child.pid as number), 'SIGINT'); // Ctrl-C reaches the terminal's process group
  assert.equal(await new Promise((resolve) => started.child.once('exit', resolve)), 0);
  assert.match(started.output(), /stopped\n$/);
  assert.deepEqual(
    pids.filter((pid) => alive(pid)),
    [],
    'no process it started is left',
  );
});
