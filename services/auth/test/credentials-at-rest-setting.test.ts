// CREDENTIALS_AT_REST reaches the adapters: a platform started with `clear` stores its codes and
// refresh families as the previous release does, and a process of that release (its own adapters,
// fixtures/previous-release/) redeems and rotates them beside it; this one then takes the family
// back, and a replay of a token the previous release rotated still revokes the consent. The
// adapters' every case is in previous-release-compatibility.test.ts; this is the wiring, end to end.
import assert from 'node:assert/strict';
import type { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createNamedApp, refresh } from '@devplat/test/connected-apps';
import { authorizationRequest, redeemCode } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp, createPlayer } from '@devplat/test/players';
import { decodeJwt } from 'jose';
import { refreshTokenId } from '../src/refresh-token-adapter.ts';
import * as previous from './fixtures/previous-release/adapter.ts';
import { refreshTokenAdapter as previousRefreshTokenAdapter } from './fixtures/previous-release/refresh-token-adapter.ts';

// The provider's request context (Provider.ctx), in which a refresh's consume and save are one rotation.
const { default: requestContext } = (await import('oidc-provider/lib/helpers/als.js' as string)) as {
  default: AsyncLocalStorage<object>;
};

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform({ CREDENTIALS_AT_REST: 'clear' });
});
after(() => platform.close());
const prisma = () => platform.platform.database.prisma;
const store = () => platform.platform.store;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A process of the previous release on the platform's Redis; it must revoke nothing here. */
function previousRelease() {
  const families = previous.storeFamilies(store(), {
    grantRevoked: async (grantId) => assert.fail(`the previous release revoked ${grantId}`),
  });
  const Adapter = previous.storeAdapter(store(), families);
  return { codes: new Adapter('AuthorizationCode'), refreshTokens: previousRefreshTokenAdapter(store(), families) };
}

describe('CREDENTIALS_AT_REST=clear', () => {
  test('codes and families are stored as the previous release stores them, and it uses them', async () => {
    const theirs = previousRelease();
    const app = await createNamedApp(prisma(), 'Clear roll');
    const player = await createPlayer(prisma(), app.developer.id);
    const redirectUri = app.app.redirectUris[0] as string;
    const request = await authorizationRequest(platform.base, app.clientId, redirectUri, 'city.public.read');
    const back = await consentOverHttp(request.url, player);
    const code = back.searchParams.get('code') as string;

    const [clearCode, hashedCode] = await store().getMany([
      `oidc:AuthorizationCode:{${code}}`,
      `oidc:AuthorizationCode:{${sha256(code)}}`,
    ]);
    assert.equal(hashedCode, null, 'not under its hash');
    assert.equal(JSON.parse(clearCode as string).jti, code, 'under its own name, with its jti');
    assert.equal((await theirs.codes.find(code))?.jti, code, 'the previous release finds it');

    const tokens = await redeemCode(platform.base, app, back, redirectUri, request.state, request.verifier);
    const grantId = decodeJwt(tokens.accessToken).gid as string;
    const familyKey = `oidc:RefreshToken:{${grantId}}`;
    const [record] = await store().getMany([familyKey]);
    assert.ok(record?.startsWith(`{"id":"${tokens.refreshToken}",`), 'the family names its token');
    // Used, under the marker the previous release claims (finding it used would revoke the grant).
    const [marker] = await store().getMany([`oidc:AuthorizationCode:{${code}}:consumed`]);
    assert.ok(marker, 'the code is marked used under its own name');

    // A refresh that lands on a pod of the previous release: it rotates the family.
    const rotatedThere = await requestContext.run({ state: {} }, async () => {
      const found = await theirs.refreshTokens.find(tokens.refreshToken);
      assert.equal(found?.jti, tokens.refreshToken);
      assert.equal(found?.consumed, undefined);
      await theirs.refreshTokens.consume(tokens.refreshToken);
      const next = refreshTokenId(grantId, 1);
      const { consumed: _, ...payload } = found;
      await theirs.refreshTokens.upsert(next, { ...payload, jti: next, rotations: 1 }, 3600);
      return next;
    });

    // The next lands here, and the one after there again.
    const rotatedHere = await refresh(platform.base, app, rotatedThere);
    assert.equal(rotatedHere.status, 200, rotatedHere.text);
    const current = rotatedHere.json.refresh_token as string;
    const [recordNow] = await store().getMany([familyKey]);
    assert.ok(recordNow?.startsWith(`{"id":"${current}",`), 'written in the clear again');
    assert.equal((await theirs.refreshTokens.find(current))?.jti, current, 'the previous release finds it');
    assert.equal((await theirs.refreshTokens.find(current))?.consumed, undefined);
    assert.ok((await theirs.refreshTokens.find(rotatedThere))?.consumed, 'and sees the one before as rotated');

    // A replay of the token the previous release rotated, here: the consent ends.
    const replayed = await refresh(platform.base, app, tokens.refreshToken);
    assert.equal(replayed.json.error, 'invalid_grant');
    const consent = await prisma().consent.findUniqueOrThrow({ where: { id: tokens.consentId } });
    assert.equal(consent.status, 'revoked');
    assert.equal(consent.revocationReason, 'refresh_token_replay');
    assert.equal(await theirs.refreshTokens.find(current), undefined, 'the family is gone for both');
  });
});
