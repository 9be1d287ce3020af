// The warn lines an operator acts on, read from a running platform's log (LOG_LEVEL=warn): a consent
// ended because a used code or refresh token came back names the consent, the app, the request and
// why; a 503 caused by a dependency names the dependency, once a second at most, with the count of
// the 503s since its last line. No line holds a token or a code.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp, createNamedApp, refresh } from '@devplat/test/connected-apps';
import { realPostgresUrl } from '@devplat/test/database';
import { type FaultProxy, startFaultProxy } from '@devplat/test/fault-proxy';
import { tokenRequest } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';
import { pollUntil } from '@devplat/test/redis-topologies';
import { issuedCode } from '@devplat/test/redis-topology-suite';

const redisUrl = process.env.REDIS_URL?.trim();
type LogLine = Record<string, unknown> & { msg: string; level: number };
const warn = 40;

describe('the warn lines an operator acts on', {
  skip: realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)',
}, () => {
  let platform: TestPlatform;
  let redis: FaultProxy;
  const lines: LogLine[] = [];
  const written = () => lines.map((line) => JSON.stringify(line)).join('\n');
  before(async () => {
    redis = await startFaultProxy({ port: Number(new URL(redisUrl as string).port || 6379) });
    platform = await startTestPlatform(
      { LOG_LEVEL: 'warn', REDIS_URL: redis.proxied(redisUrl as string), REDIS_TIMEOUT_MS: '300' },
      { logDestination: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    );
  });
  after(async () => {
    await platform?.close();
    await redis?.close();
  });

  const connected = async (name: string) => {
    const prisma = platform.platform.database.prisma;
    const app = await createNamedApp(prisma, name);
    const player = await createPlayer(prisma, app.developer.id);
    return { app, player, prisma };
  };
  const endedLines = () => lines.filter((line) => line.msg.startsWith('consent ended:'));

  test('a rotated refresh token presented again: one warn line naming the consent, the app, the request, why', async () => {
    const { app, player, prisma } = await connected('Replayed refresh');
    const tokens = await allowOverHttp(platform.base, app, player);
    const rotated = await refresh(platform.base, app, tokens.refreshToken);
    assert.equal(rotated.status, 200, rotated.text);
    const before = endedLines().length;
    const replay = await refresh(platform.base, app, tokens.refreshToken);
    assert.equal(replay.status, 400, replay.text);
    const [consent] = await prisma.consent.findMany({ where: { appId: app.app.id } });
    const [line, ...more] = endedLines().slice(before);
    assert.deepEqual(more, [], 'one line per consent ended');
    assert.deepEqual(
      { ...line, time: undefined, pid: undefined, hostname: undefined, service: undefined, name: undefined },
      {
        level: warn,
        msg: 'consent ended: a refresh token already used was presented again',
        consent_id: consent?.id,
        client_id: app.clientId,
        request_id: replay.headers.get('x-request-id'),
        reason: 'refresh_token_replay',
        time: undefined,
        pid: undefined,
        hostname: undefined,
        service: undefined,
        name: undefined,
      },
    );
    for (const token of [tokens.refreshToken, tokens.accessToken, rotated.json.refresh_token]) {
      assert.ok(!written().includes(token), 'no token in the log');
    }
  });

  test('a used code presented again: its warn line says so', async () => {
    const { app, player } = await connected('Replayed code');
    const form = await issuedCode(platform.base, app, player);
    assert.equal((await tokenRequest(platform.base, app, form)).status, 200);
    const before = endedLines().length;
    const replay = await tokenRequest(platform.base, app, form);
    assert.equal(replay.status, 400, replay.text);
    const [line] = endedLines().slice(before);
    assert.equal(line?.msg, 'consent ended: an authorization code already used was presented again');
    assert.equal(line?.reason, 'code_replay');
    assert.equal(line?.client_id, app.clientId);
    assert.ok(!written().includes(form.code as string), 'no code in the log');
  });

  test('503s for a dependency: a line naming it, at most once a second, counting the 503s between', async () => {
    const { app } = await connected('Unavailable');
    const unavailableLines = () => lines.filter((line) => line.msg === 'Redis is unavailable: answered 503');
    const before = unavailableLines().length;
    await redis.refuse();
    try {
      const token = () => tokenRequest(platform.base, app, { grant_type: 'client_credentials' });
      const first = await Promise.all(Array.from({ length: 8 }, token));
      assert.deepEqual(
        first.map((answer) => answer.status),
        Array(8).fill(503),
      );
      const burst = unavailableLines().slice(before);
      assert.equal(burst.length, 1, `one line for the burst: ${JSON.stringify(burst)}`);
      assert.equal(burst[0]?.level, warn);
      assert.equal(burst[0]?.dependency, 'Redis');
      assert.ok(
        first.some((answer) => answer.headers.get('x-request-id') === burst[0]?.request_id),
        'the line names one of the requests',
      );
      // A second on, the next 503 writes the next line, with the seven 503s it did not log.
      await pollUntil(
        'the next line, a second after the first',
        async () => {
          assert.equal((await token()).status, 503);
          return unavailableLines().length > before + 1;
        },
        5_000,
      );
      const next = unavailableLines()[before + 1];
      assert.ok(Number(next?.more_503s) >= 7, `more_503s: ${next?.more_503s}`);
    } finally {
      await redis.restore();
    }
  });
});
