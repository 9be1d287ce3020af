// Password guessing is throttled on every sign-in door: the console's JSON API and web UI and the
// player client. Per account and per client address, each lock longer than the last; 429 with
// Retry-After, a plain message on the pages; known and unknown accounts answered alike; the right
// password works again once the lock ends. Registration and player creation count a taken e-mail
// address or username like a wrong password. Each client is its own loopback address.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDeveloper } from '@devplat/test/apps';
import { registerDeveloper } from '@devplat/test/console-api';
import { fromAddress, type Reply } from '@devplat/test/from-address';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform({ SIGN_IN_ATTEMPTS: '3', SIGN_IN_LOCK_SECONDS: '1' });
});
after(() => platform?.close());

let nextClient = 1;
/** A client of its own: a loopback address no other test uses. */
const client = () => fromAddress(`127.0.10.${nextClient++}`);

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const signIn = (from: ReturnType<typeof client>, email: string, password: string) =>
  from(`${platform.console}/api/sessions`, json({ email, password }));
const problem = (reply: Reply) => {
  const { code, detail } = JSON.parse(reply.text);
  return { status: reply.status, code, detail, retryAfter: reply.headers['retry-after'] };
};
/** Waits out a lock, from the Retry-After it was answered with. */
const waitOut = (reply: Reply) => sleep(Number(reply.headers['retry-after']) * 1000 + 150);

describe('the console API', () => {
  test('locks an account after its attempts, longer each time, and lets its owner in after', async () => {
    const developer = await registerDeveloper(platform.console);
    const guesser = client();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      assert.equal(problem(await signIn(guesser, developer.email, 'wrong password')).code, 'INVALID_CREDENTIALS');
    }
    const locked = await signIn(guesser, developer.email, 'wrong password');
    assert.deepEqual(problem(locked), {
      status: 429,
      code: 'TOO_MANY_ATTEMPTS',
      detail: 'Too many attempts. Try again in 1 second.',
      retryAfter: '1',
    });
    assert.equal(locked.headers['content-type'], 'application/problem+json');
    // During the lock even the right password is refused, so a guess during it learns nothing.
    assert.equal((await signIn(client(), developer.email, developer.password)).status, 429);

    await waitOut(locked);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      assert.equal((await signIn(guesser, developer.email, 'wrong password')).status, 401);
    }
    const longer = await signIn(guesser, developer.email, 'wrong password');
    assert.equal(longer.status, 429);
    assert.equal(longer.headers['retry-after'], '2', 'the second lock is twice the first');

    await waitOut(longer);
    const owner = await signIn(client(), developer.email, developer.password);
    assert.equal(owner.status, 201, owner.text);
  });

  test('known and unknown e-mail addresses get the same answers', async () => {
    const developer = await registerDeveloper(platform.console);
    const answers = async (email: string) => {
      const from = client();
      const seen = [];
      for (let attempt = 1; attempt <= 5; attempt += 1) seen.push(problem(await signIn(from, email, 'wrong password')));
      return seen;
    };
    const known = await answers(developer.email);
    const unknown = await answers(`nobody-${Date.now()}@example.test`);
    assert.deepEqual(unknown, known);
    assert.deepEqual(
      known.map((answer) => answer.status),
      [401, 401, 401, 429, 429],
    );
  });

  test('one address guessing across many accounts is locked, other addresses are not', async () => {
    const developer = await registerDeveloper(platform.console);
    const guesser = client();
    // Four times an account's attempts, each on an account of its own.
    for (let account = 1; account <= 12; account += 1) {
      assert.equal((await signIn(guesser, `guess-${account}-${Date.now()}@example.test`, 'password?')).status, 401);
    }
    const locked = await signIn(guesser, developer.email, developer.password);
    assert.equal(problem(locked).code, 'TOO_MANY_ATTEMPTS');
    assert.equal(locked.headers['retry-after'], '2', "an address's first lock is twice an account's");
    assert.equal((await signIn(client(), developer.email, developer.password)).status, 201);
  });

  test('50 guesses at once: only the allowed attempts reach a password check', async () => {
    const developer = await registerDeveloper(platform.console);
    const guesser = client();
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => signIn(guesser, developer.email, 'wrong password')),
    );
    const statuses = replies.map((reply) => reply.status);
    assert.equal(statuses.filter((status) => status === 401).length, 3);
    assert.equal(statuses.filter((status) => status === 429).length, 47);
    // The account's lock (1 s), or the address's once its own limit is crossed too (2 s).
    const waits = replies.filter((reply) => reply.status === 429).map((reply) => Number(reply.headers['retry-after']));
    assert.ok(
      waits.every((wait) => wait === 1 || wait === 2),
      `Retry-After ${waits.join(' ')}`,
    );
    // Once the lock has passed, the right password works. Waited as a client would, by the longest
    // Retry-After answered (a fixed 1.15 s after the replies was once too short on a busy machine).
    await sleep(Math.max(...waits) * 1_000 + 150);
    assert.equal((await signIn(client(), developer.email, developer.password)).status, 201);
  });

  test('registering a taken e-mail address counts like a wrong password', async () => {
    const from = client();
    const body = { email: `taken-${Date.now()}@example.test`, password: 'a long enough password', display_name: 'A' };
    assert.equal((await from(`${platform.console}/api/accounts`, json(body))).status, 201);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      assert.equal(problem(await from(`${platform.console}/api/accounts`, json(body))).code, 'EMAIL_TAKEN');
    }
    assert.equal(problem(await from(`${platform.console}/api/accounts`, json(body))).code, 'TOO_MANY_ATTEMPTS');
  });

  test('creating a player with a taken username counts on the developer', async () => {
    const developer = await registerDeveloper(platform.console);
    const from = client();
    const create = (username: string) =>
      from(`${platform.console}/api/sandbox-players`, {
        ...json({ username, password: 'player password' }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${developer.token}` },
      });
    const username = `taken-${Date.now()}`;
    assert.equal((await create(username)).status, 201);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      assert.equal(problem(await create(username)).code, 'USERNAME_TAKEN');
    }
    const locked = await create(`${username}-new`);
    assert.equal(problem(locked).code, 'TOO_MANY_ATTEMPTS');
    await waitOut(locked);
    assert.equal((await create(`${username}-new`)).status, 201, 'a free username works after the lock');
  });
});

/** A sign-in form's page: its CSRF cookie and token, then posts with them. */
async function signInForm(from: ReturnType<typeof client>, url: string, cookieName: string) {
  const page = await from(url);
  const setCookie = [page.headers['set-cookie'] ?? []].flat();
  const cookie = setCookie.find((line) => line.startsWith(`${cookieName}=`))?.split(';')[0] ?? '';
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  return (fields: Record<string, string>) =>
    from(url, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, csrf }).toString(),
    });
}

describe('the pages', () => {
  test("the console's sign-in page says when to try again", async () => {
    const developer = await registerDeveloper(platform.console);
    const post = await signInForm(client(), `${platform.console}/signin`, 'console_csrf');
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      assert.equal((await post({ email: developer.email, password: 'wrong password' })).status, 401);
    }
    const locked = await post({ email: developer.email, password: developer.password });
    assert.equal(locked.status, 429);
    assert.equal(locked.headers['retry-after'], '1');
    assert.match(String(locked.headers['content-type']), /^text\/html/);
    assert.match(locked.text, /Too many attempts\. Try again in 1 second\./);
    await waitOut(locked);
    assert.equal((await post({ email: developer.email, password: developer.password })).status, 303);
  });

  test('the player client sign-in page says when to try again', async () => {
    const developer = await createDeveloper(platform.platform.database.prisma);
    const player = await createPlayer(platform.platform.database.prisma, developer.id);
    const post = await signInForm(client(), `${platform.playerClient}/signin`, 'player_csrf');
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const wrong = await post({ username: player.username, password: 'wrong password' });
      assert.equal(wrong.status, 401);
      assert.match(wrong.text, /Wrong username or password\./);
    }
    const locked = await post({ username: player.username, password: player.password });
    assert.equal(locked.status, 429);
    assert.equal(locked.headers['retry-after'], '1');
    assert.match(locked.text, /Too many sign-in attempts\. Try again in 1 second\./);
    assert.match(String(locked.headers['content-security-policy']), /frame-ancestors 'none'/);
    await waitOut(locked);
    const owner = await post({ username: player.username, password: player.password });
    assert.equal(owner.status, 302);
  });
});
