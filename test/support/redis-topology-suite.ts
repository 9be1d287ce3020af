// The OAuth flows that depend most on Redis, as tests any platform can be put through: one per
// Redis topology (test/redis/), so Sentinel and Cluster answer the contract as one server does.
// Tokens, codes and refresh families live in Redis; the races are decided there by SET NX.
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { allowOverHttp, createNamedApp, refresh } from './connected-apps.ts';
import { sharedSecrets } from './env.ts';
import { assertProblem, call } from './http.ts';
import { type AppClient, authorizationRequest, discover, revokeToken, tokenRequest } from './oauth.ts';
import type { TestPlatform } from './platform.ts';
import { createPlayer, openConsentScreen } from './players.ts';
import { clientCredentialsToken } from './replica-oauth.ts';

/**
 * startTestPlatform's env for a Redis topology: its settings and the secrets every process on a
 * shared Redis needs. REDIS_URL stays whatever it is (only its credentials, TLS and database count).
 */
export function topologyEnv(settings: Record<string, string>): Record<string, string> {
  return { ...sharedSecrets, ...settings };
}

/** GET {base}/me with a bearer token, checked against the contract. */
export const me = (base: string, accessToken: string) =>
  call(base, '/me', { headers: { authorization: `Bearer ${accessToken}` } });

/** An app with both scopes and a sandbox player of its developer. */
export async function appWithPlayer(platform: TestPlatform, name: string) {
  const prisma = platform.platform.database.prisma;
  const app = await createNamedApp(prisma, name);
  const player = await createPlayer(prisma, app.developer.id);
  return { app, player };
}

/** The form of a code's redemption: the player allowed the app; the code is not redeemed yet. */
export async function issuedCode(
  base: string,
  app: AppClient & { app: { redirectUris: string[] } },
  player: { username: string; password: string },
): Promise<Record<string, string>> {
  const redirectUri = app.app.redirectUris[0] as string;
  const request = await authorizationRequest(base, app.clientId, redirectUri, 'city.public.read profile.basic.read');
  const screen = await openConsentScreen(request.url, player);
  const answer = screen.redirected ? null : await screen.answer('allow');
  const location = screen.redirected?.href ?? answer?.headers.get('location');
  if (!location) throw new Error(`the consent screen's Allow answered ${answer?.status}, not a redirect`);
  const back = new URL(location);
  const code = back.searchParams.get('code');
  assert.ok(code, `the player client sent a code back: ${back.href}`);
  return { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: request.verifier };
}

/** `count` copies of a request sent at once. */
export const concurrently = <T>(count: number, send: () => Promise<T>) =>
  Promise.all(Array.from({ length: count }, send));

/**
 * Asserts what a race on one code or refresh token may answer: at most one token, every other answer
 * the contract's invalid_grant, and the consent behind it ended as a replay. Exactly one token is
 * not promised: the winner's tokens are issued only while the consent is active, and a loser's
 * replay may end it first.
 */
export async function assertRaceDecidedOnce(
  platform: TestPlatform,
  appId: string,
  answers: Awaited<ReturnType<typeof call>>[],
  reason: 'code_replay' | 'refresh_token_replay',
) {
  const tally = answers.map((answer) => `${answer.status} ${answer.json?.error ?? answer.json?.code ?? ''}`);
  const wins = answers.filter((answer) => answer.status === 200);
  assert.ok(wins.length <= 1, `${wins.length} of ${answers.length} succeeded: ${tally.join(', ')}`);
  for (const refused of answers.filter((answer) => answer.status !== 200)) {
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error, 'invalid_grant');
  }
  const consents = await platform.platform.database.prisma.consent.findMany({ where: { appId } });
  assert.deepEqual(
    consents.filter((consent) => consent.status !== 'revoked' || consent.revocationReason !== reason),
    [],
    `the race ended the consent as a ${reason}`,
  );
  for (const win of wins) assertProblem(await me(platform.base, win.json.access_token), 403, 'CONSENT_REVOKED');
}

/**
 * The flows every Redis topology must carry, by test name, each given the platform started on it.
 * The test files register them (`test()` is called there, so each test is reported as theirs).
 */
export const redisTopologyFlows: Record<string, (platform: TestPlatform) => Promise<void>> = {
  'client credentials: a 300 s app token that /cities accepts': async (platform) => {
    const { app } = await appWithPlayer(platform, 'Topology client credentials');
    const token = await clientCredentialsToken(await discover(platform.base), app.clientId, app.clientSecret);
    assert.equal(decodeJwt(token).sub, app.clientId);
    const cities = await call(platform.base, '/cities?limit=100', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(cities.status, 200, cities.text);
  },

  'authorization code with PKCE, then refresh: a new refresh token each time, the rotated one is invalid_grant': async (
    platform,
  ) => {
    const { app, player } = await appWithPlayer(platform, 'Topology code and refresh');
    const first = await allowOverHttp(platform.base, app, player);
    const second = await refresh(platform.base, app, first.refreshToken);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.expires_in, 300);
    assert.notEqual(second.json.refresh_token, first.refreshToken, 'rotated on every use');
    const third = await refresh(platform.base, app, second.json.refresh_token);
    assert.equal(third.status, 200, third.text);
    assert.equal(decodeJwt(third.json.access_token).sub, decodeJwt(first.accessToken).sub);
    const replay = await refresh(platform.base, app, first.refreshToken);
    assert.equal(replay.status, 400);
    assert.equal(replay.json.error, 'invalid_grant');
  },

  '/me answers a user token with its pairwise subject': async (platform) => {
    const { app, player } = await appWithPlayer(platform, 'Topology me');
    const tokens = await allowOverHttp(platform.base, app, player);
    const answer = await me(platform.base, tokens.accessToken);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.sub, decodeJwt(tokens.accessToken).sub);
    assert.equal(answer.json.display_name, 'Ada');
  },

  'revoking the refresh token (RFC 7009): 200 with an empty body, /me stops on the next call, the family is dead':
    async (platform) => {
      const { app, player } = await appWithPlayer(platform, 'Topology revocation');
      const tokens = await allowOverHttp(platform.base, app, player);
      assert.equal((await me(platform.base, tokens.accessToken)).status, 200);
      const revocation = await revokeToken(platform.base, app, tokens.refreshToken);
      assert.equal(revocation.status, 200);
      assert.equal(await revocation.text(), '');
      assertProblem(await me(platform.base, tokens.accessToken), 403, 'CONSENT_REVOKED');
      const refused = await refresh(platform.base, app, tokens.refreshToken);
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error, 'invalid_grant');
    },

  '50 concurrent redemptions of one code: at most one token, every other answer invalid_grant, the consent ended':
    async (platform) => {
      const { app, player } = await appWithPlayer(platform, 'Topology code race');
      const form = await issuedCode(platform.base, app, player);
      const answers = await concurrently(50, () => tokenRequest(platform.base, app, form));
      await assertRaceDecidedOnce(platform, app.app.id, answers, 'code_replay');
    },

  '50 concurrent uses of one refresh token: at most one new token, every other answer invalid_grant, the consent ended':
    async (platform) => {
      const { app, player } = await appWithPlayer(platform, 'Topology refresh race');
      const tokens = await allowOverHttp(platform.base, app, player);
      const answers = await concurrently(50, () => refresh(platform.base, app, tokens.refreshToken));
      await assertRaceDecidedOnce(platform, app.app.id, answers, 'refresh_token_replay');
    },
};
