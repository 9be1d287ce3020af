// The consent screen belongs to the session that was shown it: another signed-in player who gets
// hold of its request id cannot answer it with their own CSRF token, and the screen stays
// answerable by its player.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createNamedApp, formField, PlayerAgent } from '@devplat/test/connected-apps';
import { authorizationRequest, redeemCode } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform.close());
const prisma = () => platform.platform.database.prisma;

/** A signed-in player on the consent screen of a fresh request: its form's fields. */
async function openScreen(agent: PlayerAgent, url: string) {
  const page = await agent.get(url.slice(platform.playerClient.length));
  const html = await page.text();
  assert.equal(page.status, 200, html);
  return { request: formField(html, 'request'), csrf: formField(html, 'csrf') };
}

describe('the consent screen is bound to its session', () => {
  test("another player's session cannot answer it, and its own player still can", async () => {
    const app = await createNamedApp(prisma(), 'Bound Screen');
    const redirectUri = app.app.redirectUris[0] as string;
    const [a, b] = [await createPlayer(prisma(), app.developer.id), await createPlayer(prisma(), app.developer.id)];
    const playerA = new PlayerAgent(platform.playerClient);
    const playerB = new PlayerAgent(platform.playerClient);
    await playerA.signIn(a);
    await playerB.signIn(b);

    const forA = await authorizationRequest(platform.base, app.clientId, redirectUri, 'profile.basic.read');
    const screenA = await openScreen(playerA, forA.url);
    // B's own CSRF token, from B's own screen.
    const forB = await authorizationRequest(platform.base, app.clientId, redirectUri, 'profile.basic.read');
    const screenB = await openScreen(playerB, forB.url);
    assert.notEqual(screenA.request, screenB.request);

    for (const decision of ['allow', 'deny']) {
      const stolen = await playerB.post('/oauth/authorize', {
        request: screenA.request,
        csrf: screenB.csrf,
        decision,
      });
      assert.equal(stolen.status, 403);
      assert.equal(stolen.headers.get('location'), null, 'nothing goes back to the app');
      assert.match(await stolen.text(), /not shown to you/);
    }
    assert.equal(await prisma().consent.count({ where: { appId: app.app.id } }), 0, 'no consent for anyone');

    // A answers the screen A was shown: the code is A's, bound to A's PKCE challenge and state.
    const allowed = await playerA.post('/oauth/authorize', { ...screenA, decision: 'allow' });
    assert.equal(allowed.status, 302);
    const back = new URL(allowed.headers.get('location') as string);
    assert.equal(back.searchParams.get('state'), forA.state);
    const tokens = await redeemCode(platform.base, app, back, redirectUri, forA.state, forA.verifier);
    const consent = await prisma().consent.findUniqueOrThrow({ where: { id: tokens.consentId } });
    assert.equal(consent.playerId, a.player.id);

    // B's own screen is still B's to answer.
    const own = await playerB.post('/oauth/authorize', { ...screenB, decision: 'deny' });
    assert.equal(own.status, 302);
    assert.equal(new URL(own.headers.get('location') as string).searchParams.get('error'), 'access_denied');
  });

  test('a screen shown before signing in again belongs to the old session only', async () => {
    const app = await createNamedApp(prisma(), 'Old Session');
    const redirectUri = app.app.redirectUris[0] as string;
    const player = await createPlayer(prisma(), app.developer.id);
    const agent = new PlayerAgent(platform.playerClient);
    await agent.signIn(player);
    const request = await authorizationRequest(platform.base, app.clientId, redirectUri, 'profile.basic.read');
    const screen = await openScreen(agent, request.url);
    await agent.signIn(player); // a new session ends the old one
    const csrf = formField((await agent.connectedApps()).html, 'csrf');
    const answer = await agent.post('/oauth/authorize', { request: screen.request, csrf, decision: 'allow' });
    assert.equal(answer.status, 403);
    assert.equal(answer.headers.get('location'), null);
  });
});
