// A service's log lines as production writes them (packages/http/src/stdout-lines.ts): the lines of
// one turn of the event loop written together when it ends. A quiet service's line shows at once;
// the SIGTERM drain writes every line of every answered request, its own last line too; a SIGKILL
// loses at most the lines of the turn it cuts. Each against the real auth service at
// LOG_LEVEL=info, its stdout read as a container runtime reads it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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

/** `count` requests for the auth service's metadata, one after the other; their X-Request-Id. */
async function calls(origin: string, count: number) {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const answer = await fetch(`${origin}/.well-known/oauth-authorization-server/developer/v1`);
    await answer.arrayBuffer();
    assert.equal(answer.status, 200);
    ids.push(answer.headers.get('x-request-id') as string);
  }
  return ids;
}

describe('log lines gathered per turn, as production writes them', {
  skip: realPostgresUrl ? false : 'needs DATABASE_URL',
}, () => {
  test('a quiet service writes its one line at once; the SIGTERM drain writes every line, its own too', async () => {
    const auth = await startService('auth', deployment);
    const origin = auth.origin as string;
    try {
      const [first] = await calls(origin, 1);
      // Nothing else happens in the service: the turn's end alone writes it.
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

  test('SIGKILL: at most the lines of the turn it cuts are lost, and only the last ones', async (t) => {
    const auth = await startService('auth', deployment);
    const ids = await calls(auth.origin as string, 300).catch(async (error) => {
      await auth.stop();
      throw error;
    });
    const exited = new Promise((resolve) => auth.child.once('exit', resolve));
    process.kill(auth.child.pid as number, 'SIGKILL');
    await exited;
    const logged = new Set(loggedRequestIds(auth.output()));
    const lost = ids.filter((id) => !logged.has(id));
    t.diagnostic(`SIGKILL right after ${ids.length} answers: ${lost.length} lines lost`);
    // One request at a time: a turn holds at most the last answer's line.
    assert.ok(lost.length <= 1, `${lost.length} of ${ids.length} lines lost, more than one turn's`);
    assert.deepEqual(lost, ids.slice(ids.length - lost.length));
  });
});
