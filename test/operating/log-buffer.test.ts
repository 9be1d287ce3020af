// A service's log lines as production writes them (packages/2-infrastructure/http/src/stdout-lines.ts): gathered for
// at most a window (10 ms) and written together. A quiet service's line shows within it; the
// SIGTERM drain writes every line of every answered request, its own last line too; a SIGKILL
// loses at most the lines of the window it cuts. Each against the real auth service at
// LOG_LEVEL=info, its stdout read as a container runtime reads it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { logWindowMs } from '@devplat/http';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { type Deployment, plannedDeployment, startService } from '@devplat/test/services';
import { eventually } from '@devplat/test/webhook-receiver';

let database: TestDatabase;
let deployment: Deployment;

before(async () => {
  database = await createTestDatabase();
  deployment = await plannedDeployment({
    ...(database.url && { DATABASE_URL: database.url }),
    LOG_LEVEL: 'info',
    SHUTDOWN_DELAY_MS: '0',
  });
});
after(() => database?.drop());

/** The request ids of the request lines the process has written so far. */
function loggedRequestIds(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"msg":"request"'))
    .map((line) => (JSON.parse(line) as { request_id: string }).request_id);
}

/** `count` requests for the auth service's metadata, one after the other; their X-Request-Id and when each was answered. */
async function calls(origin: string, count: number, answeredAt: number[] = []) {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const answer = await fetch(`${origin}/.well-known/oauth-authorization-server/developer/v1`);
    await answer.arrayBuffer();
    assert.equal(answer.status, 200);
    ids.push(answer.headers.get('x-request-id') as string);
    answeredAt.push(performance.now());
  }
  return ids;
}

describe('log lines gathered for a window, as production writes them', {
  skip: realPostgresUrl ? false : 'needs DATABASE_URL',
}, () => {
  test('a quiet service writes its one line at once; the SIGTERM drain writes every line, its own too', async () => {
    const auth = await startService('auth', deployment);
    const origin = auth.origin as string;
    try {
      const [first] = await calls(origin, 1);
      // Nothing else happens in the service: the window's end alone writes it.
      await eventually(() => loggedRequestIds(auth.output()).includes(first as string), 2_000);
    } catch (error) {
      await auth.stop();
      throw error;
    }
    const ids = await calls(origin, 300);
    assert.equal(await auth.stop(), 0);
    const logged = new Set(loggedRequestIds(auth.output()));
    assert.deepEqual(
      ids.filter((id) => !logged.has(id)),
      [],
      'every answered request has its line',
    );
    // The drain's last line, made in the turn that exits: the exit writes it.
    const last = auth.output().trim().split('\n').at(-1) as string;
    assert.equal((JSON.parse(last) as { msg: string }).msg, 'drained');
  });

  test('SIGKILL: at most the lines of the window it cuts are lost, and only the last ones', async (t) => {
    const auth = await startService('auth', deployment);
    const answeredAt: number[] = [];
    const ids = await calls(auth.origin as string, 300, answeredAt).catch(async (error) => {
      await auth.stop();
      throw error;
    });
    const exited = new Promise((resolve) => auth.child.once('exit', resolve));
    const killedAt = performance.now();
    process.kill(auth.child.pid as number, 'SIGKILL');
    await exited;
    const logged = new Set(loggedRequestIds(auth.output()));
    const lost = ids.filter((id) => !logged.has(id));
    t.diagnostic(`SIGKILL right after ${ids.length} answers: ${lost.length} lines lost`);
    assert.deepEqual(lost, ids.slice(ids.length - lost.length), 'only the last lines are lost');
    // A line is logged before its answer is sent, so a lost one was answered within the window
    // before the kill; 250 ms more for a loaded machine's late timer.
    const oldestLost = answeredAt[ids.length - lost.length] ?? killedAt;
    assert.ok(
      killedAt - oldestLost <= logWindowMs + 250,
      `a line answered ${(killedAt - oldestLost).toFixed(0)} ms before the kill was lost, beyond the window`,
    );
  });
});
