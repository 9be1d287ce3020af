// A revocation is never lost. Every path that ends a consent (revocation of a refresh or an access
// token, code replay, refresh-token replay, Remove access) is cut at each of its steps: PostgreSQL
// failing the consent's update (a trigger raising SQLSTATE 08006, a connection failure, at exactly
// that statement), and the store failing to delete the grant after PostgreSQL committed. Each cut
// answers 503, and the client's retry ends in the right state: the consent revoked, its
// consent.revoked event written once, every token refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { createNamedApp, formField, PlayerAgent } from '@devplat/test/connected-apps';
import { assertProblem, call } from '@devplat/test/http';
import { type AppClient, authorizationRequest, basicAuth, redeemCode, revokeToken } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp, createPlayer } from '@devplat/test/players';

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform.close());
const prisma = () => platform.platform.database.prisma;

type Cut = 'postgresql' | 'store';

/** Runs `work` with one step cut: the consent's update in PostgreSQL, or the grant's deletion. */
async function cutting<T>(cut: Cut, work: () => Promise<T>): Promise<T> {
  if (cut === 'postgresql') {
    await prisma().$executeRawUnsafe(`CREATE OR REPLACE FUNCTION cut_consents() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'connection lost' USING ERRCODE = '08006'; END $$ LANGUAGE plpgsql`);
    await prisma().$executeRawUnsafe(
      'CREATE TRIGGER cut_consents BEFORE UPDATE ON consents FOR EACH ROW EXECUTE FUNCTION cut_consents()',
    );
    try {
      return await work();
    } finally {
      await prisma().$executeRawUnsafe('DROP TRIGGER cut_consents ON consents');
    }
  }
  const store = platform.platform.store;
  const realDelete = store.delete;
  store.delete = async (keys) => {
    if (keys.some((key) => key.startsWith('oidc:'))) throw new DependencyUnavailableError('Redis');
    return realDelete(keys);
  };
  try {
    return await work();
  } finally {
    store.delete = realDelete;
  }
}

interface Issued {
  app: AppClient & { app: { redirectUris: string[] } };
  player: { username: string; password: string };
  accessToken: string;
  refreshToken: string;
  consentId: string;
  /** The code and what redeeming it took, for a replay. */
  redemption: { code: string; redirectUri: string; verifier: string };
}

async function issue(name: string): Promise<Issued> {
  const app = await createNamedApp(prisma(), name);
  const player = await createPlayer(prisma(), app.developer.id);
  const redirectUri = app.app.redirectUris[0] as string;
  const { url, state, verifier } = await authorizationRequest(
    platform.base,
    app.clientId,
    redirectUri,
    'city.public.read profile.basic.read',
  );
  const back = await consentOverHttp(url, player);
  const tokens = await redeemCode(platform.base, app, back, redirectUri, state, verifier);
  return {
    app,
    player,
    ...tokens,
    redemption: { code: back.searchParams.get('code') as string, redirectUri, verifier },
  };
}

const tokenRequest = (app: AppClient, fields: Record<string, string>) =>
  call(platform.base, '/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams(fields).toString(),
  });

async function assertEnded(issued: Issued, reason: string) {
  const consent = await prisma().consent.findUniqueOrThrow({ where: { id: issued.consentId } });
  assert.equal(consent.status, 'revoked');
  assert.equal(consent.revocationReason, reason);
  const events = (await prisma().outboxEvent.findMany({ where: { type: 'consent.revoked' } })).filter(
    (event) => (event.payload as { consent_id: string }).consent_id === issued.consentId,
  );
  assert.equal(events.length, 1, 'consent.revoked written once');
  const me = await call(platform.base, '/me', { headers: { authorization: `Bearer ${issued.accessToken}` } });
  assertProblem(me, 403, 'CONSENT_REVOKED');
  const refreshed = await tokenRequest(issued.app, { grant_type: 'refresh_token', refresh_token: issued.refreshToken });
  assert.equal(refreshed.json.error, 'invalid_grant');
}

async function assertStillActive(issued: Issued) {
  const consent = await prisma().consent.findUniqueOrThrow({ where: { id: issued.consentId } });
  assert.equal(consent.status, 'active', 'nothing ended while PostgreSQL failed');
}

for (const cut of ['postgresql', 'store'] as const) {
  describe(`the ${cut === 'postgresql' ? 'consent update in PostgreSQL' : 'grant deletion in the store'} fails, the client retries`, () => {
    for (const kind of ['refresh', 'access'] as const) {
      test(`revoking the ${kind} token`, async () => {
        const issued = await issue(`Revoke ${kind} ${cut}`);
        const token = kind === 'refresh' ? issued.refreshToken : issued.accessToken;
        const failed = await cutting(cut, () => revokeToken(platform.base, issued.app, token));
        assert.equal(failed.status, 503);
        assert.equal(((await failed.json()) as { code: string }).code, 'SERVICE_UNAVAILABLE');
        if (cut === 'postgresql') await assertStillActive(issued);
        const retried = await revokeToken(platform.base, issued.app, token);
        assert.equal(retried.status, 200);
        await assertEnded(issued, 'token_revocation');
      });
    }

    test('a replayed code', async () => {
      const issued = await issue(`Code replay ${cut}`);
      const replay = () =>
        tokenRequest(issued.app, {
          grant_type: 'authorization_code',
          code: issued.redemption.code,
          redirect_uri: issued.redemption.redirectUri,
          code_verifier: issued.redemption.verifier,
        });
      const failed = await cutting(cut, replay);
      assertProblem(failed, 503, 'SERVICE_UNAVAILABLE');
      if (cut === 'postgresql') await assertStillActive(issued);
      assert.equal((await replay()).json.error, 'invalid_grant');
      await assertEnded(issued, 'code_replay');
    });

    test('a replayed refresh token', async () => {
      const issued = await issue(`Refresh replay ${cut}`);
      const rotated = await tokenRequest(issued.app, {
        grant_type: 'refresh_token',
        refresh_token: issued.refreshToken,
      });
      assert.equal(rotated.status, 200, rotated.text);
      const replay = () =>
        tokenRequest(issued.app, { grant_type: 'refresh_token', refresh_token: issued.refreshToken });
      const failed = await cutting(cut, replay);
      assertProblem(failed, 503, 'SERVICE_UNAVAILABLE');
      if (cut === 'postgresql') await assertStillActive(issued);
      assert.equal((await replay()).json.error, 'invalid_grant');
      await assertEnded(issued, 'refresh_token_replay');
      const current = await tokenRequest(issued.app, {
        grant_type: 'refresh_token',
        refresh_token: rotated.json.refresh_token,
      });
      assert.equal(current.json.error, 'invalid_grant', 'the whole family is dead');
    });
  });
}

test('Remove access with PostgreSQL failing the consent update: a 503 page, and pressing it again removes it', async () => {
  const issued = await issue('Remove access cut');
  const agent = new PlayerAgent(platform.playerClient);
  await agent.signIn(issued.player);
  const remove = async () => {
    const { csrf } = await agent.connectedApps();
    return agent.remove({ client_id: issued.app.clientId, csrf });
  };
  const failed = await cutting('postgresql', remove);
  assert.equal(failed.status, 503);
  assert.match(await failed.text(), /temporarily unavailable/);
  await assertStillActive(issued);
  const { html } = await agent.connectedApps();
  assert.match(html, /Remove access cut/, 'the app is still listed');
  assert.equal((await remove()).status, 303);
  await assertEnded(issued, 'player_withdrawal');
  assert.equal(formField((await agent.connectedApps()).html, 'client_id'), '', 'no app is listed');
});
