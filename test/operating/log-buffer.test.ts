// A service's log lines as production writes them (packages/http/src/logger.ts): gathered up to
// 4 KiB per write, written at least every 100 ms. A quiet service's line still shows on its own;
// the SIGTERM drain writes every line of every answered request; a SIGKILL loses at most the
// buffer's 4 KiB. Each against the real auth service at LOG_LEVEL=info, its stdout read as a
// container runtime reads it.
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

describe('log lines buffered as production writes them', {
  skip: realPostgresUrl ? false : 'needs DATABASE_URL',
}, () => {
  test('a quiet service writes its one line at once; the SIGTERM drain writes every answered line', async () => {
    const auth = await startService('auth', deployment);
    const origin = auth.origin as string;
    try {
      const [first] = await calls(origin, 1);
      // Far under the 4 KiB the buffer gathers: only the timer's flush can write it.
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
  });

  test('SIGKILL: at most the 4 KiB buffer of lines is lost, and only the last ones', async (t) => {
    const auth = await startService('auth', deployment);
    const ids = await calls(auth.origin as string, 300).catch(async (error) => {
      await auth.stop();
      throw error;
    });
    const exited = new Promise((resolve) => auth.child.once('exit', resolve));
    process.kill(auth.child.pid as number, 'SIGKILL');
    await exited;
    const lines = auth.output().split('\n');
    const logged = new Set(loggedRequestIds(auth.output()));
    const shortest = Math.min(
      ...lines.filter((line) => line.includes('"msg":"request"')).map((line) => line.length + 1),
    );
    const lost = ids.filter((id) => !logged.has(id));
    t.diagnostic(
      `SIGKILL right after ${ids.length} answers: ${lost.length} lines lost (lines of ${shortest} bytes or more)`,
    );
    assert.ok(
      lost.length <= Math.ceil(4096 / shortest),
      `${lost.length} of ${ids.length} lines lost, more than 4 KiB of lines of ${shortest} bytes`,
    );
    // Whatever was lost is the last lines, never one in the middle.
    assert.deepEqual(lost, ids.slice(ids.length - lost.length));
  });
});
