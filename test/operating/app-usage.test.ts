// What an operator sees of an app's use, end to end: an app gets client-credentials tokens from a
// started platform, and its tokens of the last 24 hours and its secret's last use reach Redis and
// PostgreSQL off the token path (the flush timers, short here), then `admin show-app` (the real entry
// point, as a child process) prints them. A refused request counts nothing; the drain flushes what
// is still pending before it closes the stores.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { type KeyValueStore, redisStore } from '@devplat/kv';
import { createTestApp } from '@devplat/test/apps';
import { realPostgresUrl } from '@devplat/test/database';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { runProcess } from '@devplat/test/process';
import { eventually } from '@devplat/test/webhook-receiver';
import { type TokenUsage, tokenUsage } from '@devplat/usage';

const redisUrl = process.env.REDIS_URL?.trim();
// The admin command reads the platform's PostgreSQL and Redis from a process of its own.
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';

const platforms: TestPlatform[] = [];
const readers: KeyValueStore[] = [];

/** A platform with its own Redis keys; `env` sets the flush intervals. */
async function platformWith(env: Record<string, string>) {
  const prefix = `devplat-test:${randomUUID()}:`;
  const platform = await startTestPlatform({ REDIS_KEY_PREFIX: prefix, ...env });
  platforms.push(platform);
  return { platform, prefix, usage: usageOn(prefix) };
}

/** The counters of the platform whose keys start with `prefix`, read as the admin command reads them. */
function usageOn(prefix: string): TokenUsage {
  const reader = redisStore(redisUrl as string, { prefix, timeoutMs: 2_000 });
  readers.push(reader);
  return tokenUsage(reader);
}

after(async () => {
  for (const reader of readers) await reader.close();
  for (const platform of platforms) await platform.close();
});

function tokenRequest(base: string, clientId: string, clientSecret: string) {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(clientId, clientSecret),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
}

async function getTokens(base: string, clientId: string, clientSecret: string, n: number) {
  for (let i = 0; i < n; i += 1) {
    const answer = await tokenRequest(base, clientId, clientSecret);
    assert.equal(answer.status, 200, await answer.text());
    await answer.arrayBuffer().catch(() => {});
  }
}

/** `admin show-app <clientId>` on the platform's stores; its standard output. */
async function showApp(platform: TestPlatform, prefix: string, clientId: string): Promise<string> {
  const { DATABASE_URL: _d, REDIS_URL: _r, REDIS_KEY_PREFIX: _p, ...rest } = process.env;
  const env = {
    ...rest,
    DATABASE_URL: platform.database.url as string,
    REDIS_URL: redisUrl as string,
    REDIS_KEY_PREFIX: prefix,
  };
  const result = await runProcess(process.execPath, ['services/admin/src/main.ts', 'show-app', clientId], { env }).done;
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

const lastUsedOf = async (platform: TestPlatform, secretId: string) =>
  (await platform.database.prisma.clientSecret.findUniqueOrThrow({ where: { id: secretId } })).lastUsedAt;

test("an app's tokens of the last 24 hours and its secret's last use reach show-app", { skip }, async () => {
  const { platform, prefix, usage } = await platformWith({
    USAGE_COUNT_FLUSH_MS: '50',
    USAGE_LAST_USED_FLUSH_MS: '50',
  });
  const { app, clientId, clientSecret } = await createTestApp(platform.database.prisma);
  const [secret] = await platform.database.prisma.clientSecret.findMany({ where: { appId: app.id } });
  const secretId = (secret as { id: string }).id;
  const before = new Date();

  await getTokens(platform.base, clientId, clientSecret, 7);
  // A wrong secret gets no token and counts nothing.
  assert.equal((await tokenRequest(platform.base, clientId, `${clientSecret}x`)).status, 401);

  await eventually(async () => (await usage.lastDay(app.id)) === 7);
  const lastUsed = await eventually(() => lastUsedOf(platform, secretId).then((at) => at ?? undefined));
  assert.ok(lastUsed >= new Date(before.getTime() - 1), `${lastUsed.toISOString()} is after the first request`);

  const shown = await showApp(platform, prefix, clientId);
  assert.match(shown, /^tokens 24 h\s+7$/m);
  // The requests' uses may reach PostgreSQL over more than one flush: show-app shows the latest,
  // never earlier than the one first seen, never later than now.
  const shownUse = shown.match(new RegExp(`^secrets\\s+${secretId} active created \\S+ last used (\\S+)$`, 'm'))?.[1];
  assert.ok(shownUse, shown);
  const shownAt = new Date(shownUse);
  assert.ok(shownAt >= lastUsed && shownAt <= new Date(), `${shownUse} is between ${lastUsed.toISOString()} and now`);
  // One more is 8, not 9: the refused request was not counted late either.
  await getTokens(platform.base, clientId, clientSecret, 1);
  await eventually(async () => (await usage.lastDay(app.id)) === 8);
});

test('the drain flushes what is pending before it closes the stores', { skip }, async () => {
  // The default intervals (5 s, 60 s): only the drain's flush can have written these in time.
  const { platform, usage } = await platformWith({});
  const { app, clientId, clientSecret } = await createTestApp(platform.database.prisma);
  const [secret] = await platform.database.prisma.clientSecret.findMany({ where: { appId: app.id } });
  await getTokens(platform.base, clientId, clientSecret, 3);
  assert.equal(await lastUsedOf(platform, (secret as { id: string }).id), null);

  await platform.platform.close(); // the drain, as on SIGTERM; the test's database stays open
  assert.equal(await usage.lastDay(app.id), 3);
  assert.ok(await lastUsedOf(platform, (secret as { id: string }).id));
});
