// A developer sees their own app's history, through the console API and on its web page: what they
// did (by their e-mail, with the request that did it) and what the platform did (as "the
// platform", never the operator's name or reason), newest first, a page at a time. Another
// developer's app answers 404. Every API answer is checked against the console API document.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { appDirectory } from '@devplat/app-directory';
import type { HistoryEntryView } from '@devplat/contract';
import { suspendApp, unsuspendApp } from '@devplat/domain/apps';
import { endAppConsents, endPlayerConsents, grantConsent } from '@devplat/domain/consents';
import { consoleCall, type Developer, registerDeveloper, signInToWeb } from '@devplat/test/console-api';
import { assertProblem } from '@devplat/test/http';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';

let platform: TestPlatform;
let developer: Developer;
let stranger: Developer;
const operator = { operator: 'ops-zed-internal' };
const reason = 'ticket 4711: chargeback fraud suspected';

before(async () => {
  // No worker: the test webhook's delivery waits until the test fails it, to be replayed.
  platform = await startTestPlatform({}, { webhookWorker: false });
  developer = await registerDeveloper(platform.console);
  stranger = await registerDeveloper(platform.console);
});
after(() => platform?.close());

const prisma = () => platform.platform.database.prisma;
const directory = () => appDirectory(prisma(), platform.platform.store);

function api(method: string, path: string, options: Parameters<typeof consoleCall>[3] = {}) {
  return consoleCall(platform.console, method, path, { token: developer.token, ...options });
}

/** What a developer reads of an entry. */
type Seen = Pick<HistoryEntryView, 'action' | 'actor' | 'summary' | 'request_id'>;
const seen = ({ action, actor, summary, request_id }: HistoryEntryView): Seen => ({
  action,
  actor,
  summary,
  request_id,
});

/**
 * The entries are newest first, and are `expected` (newest first too): entries of the same
 * millisecond may come in either order, so those are compared in the expected one.
 */
function assertNewestFirst(entries: HistoryEntryView[], expected: Seen[]) {
  const times = entries.map((entry) => entry.at);
  assert.deepEqual(times, times.toSorted().reverse(), 'newest first');
  const rank = (entry: HistoryEntryView) =>
    expected.findIndex((wanted) => JSON.stringify(wanted) === JSON.stringify(seen(entry)));
  const ordered = entries.toSorted((a, b) => b.at.localeCompare(a.at) || rank(a) - rank(b));
  assert.deepEqual(ordered.map(seen), expected);
}

/** Every page of the app's history through the API, `limit` a page. */
async function pagesOf(clientId: string, limit: number) {
  const pages: { data: HistoryEntryView[]; next_cursor: string | null }[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const answer = await api('GET', `/apps/${clientId}/history?${query}`);
    assert.equal(answer.status, 200, answer.text);
    pages.push(answer.json);
    cursor = answer.json.next_cursor;
  } while (cursor);
  return pages;
}

/** Signs the developer in to the web UI; resolves with a GET that sends the session cookie. */
const webSession = async (who: Developer) => (await signInToWeb(platform.console, who)).get;

/** Where each text first appears in the page, in the order given; fails when one is missing. */
function positions(page: string, texts: string[]) {
  return texts.map((text) => {
    const at = page.indexOf(text);
    assert.ok(at >= 0, `the page shows ${text}`);
    return at;
  });
}
const escaped = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');

describe("an app's history", () => {
  let clientId: string;
  let expected: Seen[];
  /** The player whose consents the platform ended: the developer's history never names them. */
  let endedPlayer: { id: string; username: string };

  before(async () => {
    const created = await api('POST', '/apps', {
      body: { name: 'Chronicle', redirect_uris: ['http://127.0.0.1:8977/callback'], scopes: ['city.public.read'] },
    });
    assert.equal(created.status, 201, created.text);
    clientId = created.json.app.client_id;
    const firstSecret = created.json.app.secrets[0].secret_id;
    const rotated = await api('POST', `/apps/${clientId}/secrets`);
    assert.equal(rotated.status, 201, rotated.text);
    const revoked = await api('DELETE', `/apps/${clientId}/secrets/${firstSecret}`);
    assert.equal(revoked.status, 204, revoked.text);
    const edited = await api('PATCH', `/apps/${clientId}`, {
      body: {
        redirect_uris: ['https://chronicle.example.test/cb'],
        scopes: ['city.public.read', 'profile.basic.read'],
        webhook_url: 'https://hooks.example.test/consent',
      },
    });
    assert.equal(edited.status, 200, edited.text);
    const tested = await api('POST', `/apps/${clientId}/webhooks/test`);
    assert.equal(tested.status, 202, tested.text);
    const failedId = tested.json.delivery_id;
    await prisma().webhookDelivery.update({ where: { id: failedId }, data: { status: 'failed' } });
    const replayed = await api('POST', `/deliveries/${failedId}/replay`);
    assert.equal(replayed.status, 202, replayed.text);

    // Three players allowed the app; the platform ends one player's consents (with every app), then
    // the app's, and suspends it.
    const app = await prisma().app.findUniqueOrThrow({ where: { clientId } });
    const players = [];
    for (const _ of [1, 2, 3]) {
      const { player, username } = await createPlayer(prisma(), developer.id);
      players.push({ id: player.id, username });
      await grantConsent(prisma(), 'p'.repeat(32), {
        app,
        playerId: player.id,
        grantId: randomUUID(),
        scopes: ['profile.basic.read'],
      });
    }
    endedPlayer = players[2]!;
    await endPlayerConsents(prisma(), 'p'.repeat(32), operator, endedPlayer, { reason });
    await endAppConsents(prisma(), 'p'.repeat(32), operator, app, { reason });
    assert.equal(await suspendApp(prisma(), directory(), operator, app.id, { reason }), true);

    const you = { type: 'developer' as const, email: developer.email };
    const requestOf = (answer: { headers: Headers }) => answer.headers.get('x-request-id');
    expected = [
      { action: 'app.suspend', actor: { type: 'platform' }, summary: 'Suspended by the platform', request_id: null },
      {
        action: 'app.consents_end',
        actor: { type: 'platform' },
        summary: '2 consents ended by the platform',
        request_id: null,
      },
      {
        action: 'player.consents_end',
        actor: { type: 'platform' },
        summary: "1 consent ended by the platform (a player's, with every app)",
        request_id: null,
      },
      {
        action: 'webhook.replay',
        actor: you,
        summary: `Delivery ${failedId} replayed as ${replayed.json.delivery_id}`,
        request_id: requestOf(replayed),
      },
      {
        action: 'webhook.test',
        actor: you,
        summary: `Test webhook sent (delivery ${failedId})`,
        request_id: requestOf(tested),
      },
      {
        action: 'app.edit',
        actor: you,
        summary: 'Edited: redirect_uris, scopes, webhook_url',
        request_id: requestOf(edited),
      },
      {
        action: 'secret.revoke',
        actor: you,
        summary: `Secret ${firstSecret} revoked`,
        request_id: requestOf(revoked),
      },
      {
        action: 'secret.create',
        actor: you,
        summary: `Secret ${rotated.json.secret_id} created`,
        request_id: requestOf(rotated),
      },
      { action: 'app.create', actor: you, summary: 'App created', request_id: requestOf(created) },
    ];
  });

  test("lists what the developer and the platform did, newest first, with who and the developer's requests", async () => {
    const answer = await api('GET', `/apps/${clientId}/history`);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.next_cursor, null, 'all on one page');
    assertNewestFirst(answer.json.data, expected);
    for (const internal of [operator.operator, reason, 'ticket 4711', endedPlayer.username, endedPlayer.id]) {
      assert.ok(!answer.text.includes(internal), `the history never shows ${internal}`);
    }
  });

  test('pages with a cursor: every entry once, in the same order', async () => {
    const whole = (await api('GET', `/apps/${clientId}/history`)).json.data as HistoryEntryView[];
    const pages = await pagesOf(clientId, 3);
    assert.deepEqual(
      pages.map((page) => page.data.length),
      [3, 3, 3],
    );
    assert.deepEqual(
      pages.flatMap((page) => page.data),
      whole,
    );
    assert.equal(pages.at(-1)?.next_cursor, null);
  });

  test('the platform lifting the suspension is the newest entry; the developer reads the history while suspended too', async () => {
    const app = await prisma().app.findUniqueOrThrow({ where: { clientId } });
    const [newest] = (await api('GET', `/apps/${clientId}/history?limit=1`)).json.data;
    assert.equal(newest.action, 'app.suspend', 'readable while suspended');
    assert.equal(await unsuspendApp(prisma(), directory(), operator, app.id), true);
    const answer = await api('GET', `/apps/${clientId}/history?limit=1`);
    assert.deepEqual(seen(answer.json.data[0]), {
      action: 'app.unsuspend',
      actor: { type: 'platform' },
      summary: 'Suspension lifted by the platform: active again',
      request_id: null,
    });
    assert.equal(typeof answer.json.next_cursor, 'string');
  });

  test("another developer's app, an unknown one and a bad query are refused", async () => {
    const theirs = await consoleCall(platform.console, 'GET', `/apps/${clientId}/history`, { token: stranger.token });
    assertProblem(theirs, 404, 'NOT_FOUND');
    assert.ok(!theirs.text.includes('Chronicle'));
    // Even with a query it would refuse: nothing says the app exists.
    const theirsBadCursor = await consoleCall(platform.console, 'GET', `/apps/${clientId}/history?cursor=x`, {
      token: stranger.token,
    });
    assertProblem(theirsBadCursor, 404, 'NOT_FOUND');
    assertProblem(await api('GET', '/apps/svc_aaaaaaaaaaaaaaaaaaaaaaaaaa/history'), 404, 'NOT_FOUND');
    const refusals: [string, RegExp][] = [
      ['page=2', /Unknown query parameter page/],
      ['cursor=nonsense', /cursor is not one this listing gave/],
      ['limit=0', /limit must be an integer from 1 to 200/],
      ['limit=201', /limit must be an integer from 1 to 200/],
      ['limit=ten', /limit must be an integer from 1 to 200/],
      ['limit=1&limit=2', /limit may appear once/],
    ];
    for (const [query, detail] of refusals) {
      const answer = await api('GET', `/apps/${clientId}/history?${query}`);
      assertProblem(answer, 400, 'INVALID_REQUEST');
      assert.match(answer.json.detail, detail, query);
    }
    const notSignedIn = await consoleCall(platform.console, 'GET', `/apps/${clientId}/history`);
    assertProblem(notSignedIn, 401, 'NOT_SIGNED_IN');
    const posted = await api('POST', `/apps/${clientId}/history`, { body: {} });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET, HEAD');
  });

  test("the web page shows the same entries, pages with Older, and is linked from the app's page", async () => {
    const get = await webSession(developer);
    const appPage = await (await get(`/apps/${clientId}`)).text();
    assert.ok(appPage.includes(`href="/apps/${clientId}/history"`), "the app's page links its history");

    const response = await get(`/apps/${clientId}/history`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    const page = await response.text();
    assert.match(page, /<h1>History of Chronicle<\/h1>/);
    const entries = (await api('GET', `/apps/${clientId}/history`)).json.data as HistoryEntryView[];
    // Each entry's row, in the API's order, with its time, who and request.
    const at = positions(
      page,
      entries.map((entry) => escaped(entry.summary)),
    );
    assert.deepEqual(
      at,
      at.toSorted((a, b) => a - b),
      'in the same order',
    );
    for (const [index, entry] of entries.entries()) {
      const row = page.slice(page.lastIndexOf('<tr>', at[index]), page.indexOf('</tr>', at[index]));
      const who = entry.actor.type === 'platform' ? 'the platform' : entry.actor.email;
      assert.ok(row.includes(`<td>${escaped(who)}</td>`), `${entry.summary}: by ${who}`);
      assert.ok(row.includes(entry.at), `${entry.summary}: at ${entry.at}`);
      if (entry.request_id) assert.ok(row.includes(entry.request_id), `${entry.summary}: ${entry.request_id}`);
    }
    assert.ok(!page.includes(operator.operator) && !page.includes('ticket 4711'), 'never the operator or their reason');
    assert.ok(!page.includes('rel="next"'), 'one page: no Older link');

    // Pages of three: Older carries the cursor to the rest.
    const first = await (await get(`/apps/${clientId}/history?limit=3`)).text();
    const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(first)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(older, 'an Older link');
    assert.match(older, new RegExp(`^/apps/${clientId}/history\\?limit=3&cursor=`));
    const second = await (await get(older)).text();
    positions(
      second,
      entries.slice(3, 6).map((entry) => escaped(entry.summary)),
    );
    for (const entry of [...entries.slice(0, 3), ...entries.slice(6)]) {
      assert.ok(!second.includes(escaped(entry.summary)), `not ${entry.summary} on the second page`);
    }
    assert.ok(second.includes(`href="/apps/${clientId}/history"`), 'and a way back to the newest');

    const bad = await get(`/apps/${clientId}/history?cursor=nonsense`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /cursor is not one this listing gave/);
    const theirs = await (await webSession(stranger))(`/apps/${clientId}/history`);
    assert.equal(theirs.status, 404);
  });
});
