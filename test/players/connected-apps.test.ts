// The player's connected apps on the player client: each allowed app listed once with what it
// can do, and Remove access ending every consent with it, so that the app's tokens stop on the
// very next call and its refresh-token family dies. In Chromium as a player meets it, and over
// plain HTTP for the refusals.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { useBrowserRig } from '@devplat/test/browser';
import { allowOverHttp, createNamedApp, formField, PlayerAgent, refresh } from '@devplat/test/connected-apps';
import { assertProblem, call } from '@devplat/test/http';
import { type AppClient, authorizationRequest, redeemCode, revokeToken } from '@devplat/test/oauth';
import { createPlayer } from '@devplat/test/players';
import { decodeJwt } from 'jose';

const rig = useBrowserRig();
const prisma = () => rig.platform.platform.database.prisma;

const me = (accessToken: string) =>
  call(rig.platform.base, '/me', { headers: { authorization: `Bearer ${accessToken}` } });
const cities = (accessToken: string) =>
  call(rig.platform.base, '/cities', { headers: { authorization: `Bearer ${accessToken}` } });
const consent = (id: string) => prisma().consent.findUniqueOrThrow({ where: { id } });
const revokedEvents = async (consentId: string) =>
  (await prisma().outboxEvent.findMany({ where: { type: 'consent.revoked' } }))
    .map((event) => event.payload as { consent_id: string; reason: string })
    .filter((payload) => payload.consent_id === consentId);

/** Asserts the consent ended by the player's withdrawal, with exactly one consent.revoked event. */
async function assertWithdrawn(consentId: string) {
  const receipt = await consent(consentId);
  assert.equal(receipt.status, 'revoked');
  assert.equal(receipt.revocationReason, 'player_withdrawal');
  const events = await revokedEvents(consentId);
  assert.equal(events.length, 1, 'exactly one consent.revoked event');
  assert.equal(events[0]?.reason, 'player_withdrawal');
}

async function signedInAgent(player: { username: string; password: string }) {
  const agent = new PlayerAgent(rig.platform.playerClient);
  await agent.signIn(player);
  return agent;
}

describe('connected apps in Chromium', () => {
  test('a player allows two apps, sees both, removes one: its tokens stop, the other keeps working', async () => {
    const chess = await createNamedApp(prisma(), 'Chess Club', { redirectUris: [rig.callback] });
    const maps = await createNamedApp(prisma(), 'City Maps', { redirectUris: [rig.callback] });
    const player = await createPlayer(prisma(), chess.developer.id, 'Ada Lovelace');
    const context = await rig.browser.newContext();
    const page = await context.newPage();

    const allowInBrowser = async (app: AppClient, scope: string) => {
      const request = await authorizationRequest(rig.platform.base, app.clientId, rig.callback, scope);
      await page.goto(request.url);
      if (page.url().startsWith(`${rig.platform.playerClient}/signin`)) {
        await page.getByLabel('Username').fill(player.username);
        await page.getByLabel('Password').fill(player.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
      }
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((current) => current.href.startsWith(rig.callback));
      return redeemCode(rig.platform.base, app, new URL(page.url()), rig.callback, request.state, request.verifier);
    };
    const chessTokens = await allowInBrowser(chess, 'city.public.read profile.basic.read');
    const mapsTokens = await allowInBrowser(maps, 'profile.basic.read');
    assert.equal((await me(chessTokens.accessToken)).status, 200);

    await page.goto(`${rig.platform.playerClient}/account/connected-apps`);
    assert.equal(await page.title(), 'Connected apps');
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    const chessEntry = page.getByRole('region', { name: 'Chess Club' });
    const mapsEntry = page.getByRole('region', { name: 'City Maps' });
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the player reads
    const chessText = await chessEntry.innerText();
    // biome-ignore lint/performance/useDomNodeTextContent: as above
    const mapsText = await mapsEntry.innerText();
    assert.match(chessText, /See the public list of cities/);
    assert.match(chessText, /See the display name you chose/);
    assert.match(chessText, new RegExp(`127\\.0\\.0\\.1:${new URL(rig.callback).port}`), 'the return host');
    assert.match(chessText, /Allowed on \d{1,2} \w+ \d{4}/);
    assert.match(mapsText, /See the display name you chose/);
    assert.doesNotMatch(mapsText, /See the public list of cities/, 'only what this app was allowed');
    // biome-ignore lint/performance/useDomNodeTextContent: as above
    assert.ok(!(await page.locator('body').innerText()).includes(player.player.id), 'never the player id');
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/connected-apps.png` });

    await chessEntry.getByRole('button', { name: 'Remove access' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed access for Chess Club.' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/account/connected-apps');
    assert.equal(await chessEntry.count(), 0, 'the app is gone from the list');
    assert.equal(await mapsEntry.count(), 1);

    assertProblem(await me(chessTokens.accessToken), 403, 'CONSENT_REVOKED');
    const refreshed = await refresh(rig.platform.base, chess, chessTokens.refreshToken);
    assert.equal(refreshed.status, 400);
    assert.equal(refreshed.json.error, 'invalid_grant');
    const grantId = decodeJwt(chessTokens.accessToken).gid as string;
    assert.deepEqual(await rig.platform.platform.store.members(`oidc:grant:{${grantId}}`), [], 'the family is gone');
    assert.equal((await me(mapsTokens.accessToken)).status, 200, 'the other app keeps working');
    assert.equal((await consent(mapsTokens.consentId)).status, 'active');
    await assertWithdrawn(chessTokens.consentId);

    await page.reload();
    await mapsEntry.waitFor();
    assert.equal(await page.getByRole('status').count(), 0, 'the confirmation is shown once');
    await context.close();
  });
});

describe('connected apps over HTTP', () => {
  test('signed out, the page and the remove form send the player to sign in and remove nothing', async () => {
    const app = await createNamedApp(prisma(), 'Puzzle Hunt');
    const player = await createPlayer(prisma(), app.developer.id);
    const tokens = await allowOverHttp(rig.platform.base, app, player);
    const stranger = new PlayerAgent(rig.platform.playerClient);

    const page = await stranger.get('/account/connected-apps');
    assert.equal(page.status, 302);
    assert.equal(page.headers.get('location'), '/signin?return_to=%2Faccount%2Fconnected-apps');
    const removal = await stranger.remove({ client_id: app.clientId, csrf: 'x'.repeat(43) });
    assert.equal(removal.status, 303);
    assert.match(removal.headers.get('location') ?? '', /^\/signin\?/);
    assert.equal((await consent(tokens.consentId)).status, 'active');
    assert.equal((await me(tokens.accessToken)).status, 200);
  });

  test('sign-in without return_to lands on connected apps: the empty state, and Sign out with its CSRF token', async () => {
    const app = await createNamedApp(prisma(), 'Unused App');
    const player = await createPlayer(prisma(), app.developer.id, 'Grace');
    const agent = new PlayerAgent(rig.platform.playerClient);
    assert.equal(await agent.signIn(player), '/account/connected-apps');
    const root = await agent.get('/');
    assert.equal(root.headers.get('location'), '/account/connected-apps');

    const response = await agent.get('/account/connected-apps');
    const html = await response.text();
    assert.equal(response.status, 200);
    assert.match(html, /<title>Connected apps<\/title>/);
    assert.match(html, /<h1>Connected apps<\/h1>/);
    assert.match(html, /You have not allowed any app yet\./);
    assert.doesNotMatch(html, /Remove access/);
    assert.match(html, /<button type="submit">Sign out<\/button>/);
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');

    const csrf = formField(html, 'csrf');
    assert.equal((await agent.post('/signout', { csrf: 'x'.repeat(csrf.length) })).status, 403);
    assert.equal((await agent.connectedApps()).status, 200, 'a forged sign-out leaves the player signed in');
    const signOut = await agent.post('/signout', { csrf });
    assert.equal(signOut.status, 303);
    assert.equal(signOut.headers.get('location'), '/signin');
    assert.equal((await agent.connectedApps()).status, 302, 'signed out');
  });

  test('a remove without the CSRF token, with a wrong one or with another session’s is refused', async () => {
    const app = await createNamedApp(prisma(), 'Word Quest');
    const player = await createPlayer(prisma(), app.developer.id);
    const tokens = await allowOverHttp(rig.platform.base, app, player);
    const agent = await signedInAgent(player);
    const otherSession = await signedInAgent(player);
    const { csrf: otherCsrf } = await otherSession.connectedApps();
    const { csrf } = await agent.connectedApps();
    assert.ok(csrf && otherCsrf && csrf !== otherCsrf);

    const refusedForms: Record<string, string>[] = [
      { client_id: app.clientId },
      { client_id: app.clientId, csrf: 'x'.repeat(csrf.length) },
      { client_id: app.clientId, csrf: otherCsrf },
    ];
    for (const fields of refusedForms) {
      const response = await agent.remove(fields);
      assert.equal(response.status, 403);
      assert.match(await response.text(), /nothing was removed/);
    }
    assert.equal((await consent(tokens.consentId)).status, 'active');
    assert.equal((await me(tokens.accessToken)).status, 200);
    assert.match((await agent.connectedApps()).html, /Word Quest/);
  });

  test('a player sees only their own apps and cannot remove another player’s', async () => {
    const alpha = await createNamedApp(prisma(), 'Alpha Arena');
    const beta = await createNamedApp(prisma(), 'Beta Builders');
    const first = await createPlayer(prisma(), alpha.developer.id, 'First');
    const second = await createPlayer(prisma(), beta.developer.id, 'Second');
    const firstTokens = await allowOverHttp(rig.platform.base, alpha, first);
    await allowOverHttp(rig.platform.base, beta, second);

    const agent = await signedInAgent(second);
    const { html, csrf } = await agent.connectedApps();
    assert.match(html, /Beta Builders/);
    assert.doesNotMatch(html, /Alpha Arena/);
    assert.ok(!html.includes(second.player.id) && !html.includes(first.player.id), 'no player id');

    const response = await agent.remove({ client_id: alpha.clientId, csrf });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), '/account/connected-apps');
    assert.match((await agent.connectedApps()).html, /There was nothing to remove/);
    assert.equal((await consent(firstTokens.consentId)).status, 'active');
    assert.equal((await me(firstTokens.accessToken)).status, 200);
  });

  test('an app allowed twice is listed once with both scopes, and Remove access ends both consents', async () => {
    const app = await createNamedApp(prisma(), 'Twice Allowed');
    const player = await createPlayer(prisma(), app.developer.id);
    const cityTokens = await allowOverHttp(rig.platform.base, app, player, 'city.public.read');
    const profileTokens = await allowOverHttp(rig.platform.base, app, player, 'profile.basic.read');
    const firstAllowed = (await consent(cityTokens.consentId)).grantedAt;

    const agent = await signedInAgent(player);
    const { html, csrf } = await agent.connectedApps();
    assert.equal(html.match(/<h2 /g)?.length, 1, 'one entry for the app');
    assert.equal(html.match(/<button type="submit">Remove access<\/button>/g)?.length, 1);
    assert.match(html, /See the public list of cities/);
    assert.match(html, /See the display name you chose/);
    assert.match(html, new RegExp(`datetime="${firstAllowed.toISOString()}"`), 'when it was first allowed');

    const response = await agent.remove({ client_id: app.clientId, csrf });
    assert.equal(response.status, 303);
    const afterRemoval = await agent.connectedApps();
    assert.match(afterRemoval.html, /Removed access for Twice Allowed\./);
    assert.match(afterRemoval.html, /You have not allowed any app yet\./);
    assert.doesNotMatch((await agent.connectedApps()).html, /Removed access/, 'the confirmation is shown once');

    assertProblem(await cities(cityTokens.accessToken), 403, 'CONSENT_REVOKED');
    assertProblem(await me(profileTokens.accessToken), 403, 'CONSENT_REVOKED');
    for (const tokens of [cityTokens, profileTokens]) {
      assert.equal((await refresh(rig.platform.base, app, tokens.refreshToken)).json.error, 'invalid_grant');
      await assertWithdrawn(tokens.consentId);
    }
  });

  test('an unknown app, a malformed id or an app whose access already ended: nothing to remove', async () => {
    const app = await createNamedApp(prisma(), 'Already Revoked');
    const player = await createPlayer(prisma(), app.developer.id);
    const tokens = await allowOverHttp(rig.platform.base, app, player);
    assert.equal((await revokeToken(rig.platform.base, app, tokens.refreshToken)).status, 200);
    const agent = await signedInAgent(player);
    const { csrf } = await agent.connectedApps();

    for (const clientId of [`svc_${'a'.repeat(26)}`, '<b>not an id</b>', '', app.clientId]) {
      const response = await agent.remove({ client_id: clientId, csrf });
      assert.equal(response.status, 303, clientId);
      const { html } = await agent.connectedApps();
      assert.match(html, /There was nothing to remove/);
      assert.doesNotMatch(html, /<b>not an id<\/b>/, 'nothing of the form is reflected');
    }
    const receipt = await consent(tokens.consentId);
    assert.equal(receipt.revocationReason, 'token_revocation', 'the earlier reason stands');
    assert.equal((await revokedEvents(tokens.consentId)).length, 1);
  });

  test('a store failing after the receipt is revoked does not undo the withdrawal', async () => {
    const app = await createNamedApp(prisma(), 'Store Outage');
    const player = await createPlayer(prisma(), app.developer.id);
    const tokens = await allowOverHttp(rig.platform.base, app, player);
    const agent = await signedInAgent(player);
    const { csrf } = await agent.connectedApps();

    // The grant's entries cannot be deleted: the refresh-token family stays in the store.
    const store = rig.platform.platform.store;
    const realDelete = store.delete;
    store.delete = async (keys) => {
      if (keys.some((key) => key.startsWith('oidc:'))) throw new DependencyUnavailableError('Redis');
      return realDelete(keys);
    };
    let response: Response;
    try {
      response = await agent.remove({ client_id: app.clientId, csrf });
    } finally {
      store.delete = realDelete;
    }
    assert.equal(response.status, 303);
    assert.match((await agent.connectedApps()).html, /Removed access for Store Outage\./);
    await assertWithdrawn(tokens.consentId);
    assertProblem(await me(tokens.accessToken), 403, 'CONSENT_REVOKED');
    const refreshed = await refresh(rig.platform.base, app, tokens.refreshToken);
    assert.equal(refreshed.json.error, 'invalid_grant', 'no refresh under an ended consent');
  });
});
