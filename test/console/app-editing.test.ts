// Apps and sandbox players changed after creation, through the console's JSON API, as an app and a
// player notice it on the very next call: an edited app's redirect URIs and scopes, an app disabled
// and enabled again, an app deleted, a player disabled and enabled. Every change is audited.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppView } from '@devplat/contract';
import { refresh } from '@devplat/test/connected-apps';
import { consoleCall, type Developer, registerDeveloper } from '@devplat/test/console-api';
import { assertProblem, call } from '@devplat/test/http';
import { authorizationRequest, basicAuth, redeemCode, type UserTokens } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp } from '@devplat/test/players';

let platform: TestPlatform;
let developer: Developer;
const callback = 'http://127.0.0.1:8976/callback';
const player = { username: `editor-${Date.now()}`, password: 'player password' };
let playerId: string;

before(async () => {
  platform = await startTestPlatform();
  developer = await registerDeveloper(platform.console);
  const created = await api('POST', '/sandbox-players', { body: { ...player, display_name: 'Ed' } });
  assert.equal(created.status, 201, created.text);
  playerId = created.json.id;
});
after(() => platform?.close());

const prisma = () => platform.platform.database.prisma;

function api(method: string, path: string, options: Parameters<typeof consoleCall>[3] = {}) {
  return consoleCall(platform.console, method, path, { token: developer.token, ...options });
}

interface CreatedApp {
  clientId: string;
  clientSecret: string;
  view: AppView;
}

async function createApp(scopes = ['city.public.read', 'profile.basic.read']): Promise<CreatedApp> {
  const created = await api('POST', '/apps', {
    body: { name: 'Editable', redirect_uris: [callback], scopes },
  });
  assert.equal(created.status, 201, created.text);
  return { clientId: created.json.app.client_id, clientSecret: created.json.client_secret, view: created.json.app };
}

/** The player allows the app (both scopes) and the app redeems the code at `redirectUri`. */
async function consent(app: CreatedApp, redirectUri = callback, scope = 'city.public.read profile.basic.read') {
  const { url, state, verifier } = await authorizationRequest(platform.base, app.clientId, redirectUri, scope);
  const back = await consentOverHttp(url, player);
  return redeemCode(platform.base, app, back, redirectUri, state, verifier);
}

function clientCredentials(app: CreatedApp, scope?: string) {
  return call(platform.base, '/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }).toString(),
  });
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const me = (tokens: UserTokens) => call(platform.base, '/me', bearer(tokens.accessToken));
const cities = (token: string) => call(platform.base, '/cities?limit=100', bearer(token));

/** The app's consent.revoked events, oldest first. */
async function revokedEvents(app: CreatedApp) {
  const row = await prisma().app.findUniqueOrThrow({ where: { clientId: app.clientId } });
  const events = await prisma().outboxEvent.findMany({
    where: { appId: row.id, type: 'consent.revoked' },
    orderBy: { enqueuedAt: 'asc' },
  });
  return events.map((event) => event.payload as { consent_id: string; reason: string; app: string; sub: string });
}

/** The details of the developer's audit records of this action on this app. */
async function auditOf(action: string, clientId: string) {
  const records = await prisma().auditRecord.findMany({ where: { actorId: developer.id, action } });
  return records
    .map((record) => record.details as Record<string, unknown>)
    .filter((details) => details.client_id === clientId);
}

describe('editing an app', () => {
  test('name and redirect URIs: a removed URI stops matching at once, the new one works, the client id stays', async () => {
    const app = await createApp();
    await consent(app); // the app's registration is cached by auth now
    const newCallback = 'https://editable.example.test/oauth/callback';
    const edited = await api('PATCH', `/apps/${app.clientId}`, {
      body: { name: 'Edited name', redirect_uris: [newCallback] },
    });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.json.client_id, app.clientId);
    assert.equal(edited.json.name, 'Edited name');
    assert.deepEqual(edited.json.redirect_uris, [newCallback]);
    assert.deepEqual(edited.json.scopes, app.view.scopes);

    const { url } = await authorizationRequest(platform.base, app.clientId, callback, 'city.public.read');
    const refused = await fetch(url);
    const page = await refused.text();
    assert.equal(refused.status, 400, page);
    assert.ok(page.includes(callback), 'the refusal shows the URI that arrived');
    assert.ok(page.includes(newCallback), 'next to the registered one');
    const allowed = await authorizationRequest(platform.base, app.clientId, newCallback, 'city.public.read');
    const screen = await fetch(allowed.url, { redirect: 'manual' });
    assert.notEqual(screen.status, 400, 'the new URI is accepted');

    const [record] = await auditOf('app.edit', app.clientId);
    assert.deepEqual(record?.changed, {
      name: { from: 'Editable', to: 'Edited name' },
      redirect_uris: { from: [callback], to: [newCallback] },
    });
  });

  test('removing a user scope ends the consents that hold it: the token stops, refresh is refused, consent.revoked says scope_removed', async () => {
    const app = await createApp();
    const tokens = await consent(app);
    assert.equal((await me(tokens)).status, 200);
    const edited = await api('PATCH', `/apps/${app.clientId}`, { body: { scopes: ['city.public.read'] } });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(edited.json.scopes, ['city.public.read']);

    assertProblem(await me(tokens), 403, 'CONSENT_REVOKED');
    assert.equal((await refresh(platform.base, app, tokens.refreshToken)).json.error, 'invalid_grant');
    const [event] = await revokedEvents(app);
    assert.equal(event?.reason, 'scope_removed');
    assert.equal(event?.consent_id, tokens.consentId);
    assert.equal(event?.app, app.clientId);
    const [record] = await auditOf('app.edit', app.clientId);
    assert.equal(record?.consents_ended, 1);

    // The player is asked again, and may only allow what the app still holds.
    const narrower = await consent(app, callback, 'city.public.read');
    assert.equal((await cities(narrower.accessToken)).status, 200);
    const { url } = await authorizationRequest(platform.base, app.clientId, callback, 'profile.basic.read');
    const refused = await fetch(url, { redirect: 'manual' });
    assert.equal(new URL(refused.headers.get('location') as string).searchParams.get('error'), 'invalid_scope');
  });

  test('removing an app scope: no new app token carries it; one already issued keeps it until it expires', async () => {
    const app = await createApp();
    const issued = (await clientCredentials(app)).json.access_token as string;
    const edited = await api('PATCH', `/apps/${app.clientId}`, { body: { scopes: ['profile.basic.read'] } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal((await clientCredentials(app, 'city.public.read')).json.error, 'invalid_scope');
    assert.equal((await clientCredentials(app)).json.error, 'invalid_scope', 'no app scope is left');
    assert.equal((await cities(issued)).status, 200, 'the token already issued works until it expires (300 s)');
  });

  test('refusals: the creation rules, an empty edit, an unknown field, another developer, a disabled app', async () => {
    const app = await createApp();
    const six = Array.from({ length: 6 }, (_, index) => `https://editable.example.test/${index}`);
    for (const body of [
      { redirect_uris: six },
      { redirect_uris: ['http://example.test/callback'] },
      { scopes: [] },
      { scopes: ['city.public.read', 'games.write'] },
      { name: '' },
      { name: 'x'.repeat(101) },
      { client_id: 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
      {},
    ]) {
      assertProblem(await api('PATCH', `/apps/${app.clientId}`, { body }), 400, 'INVALID_REQUEST');
    }
    assert.deepEqual((await api('GET', `/apps/${app.clientId}`)).json, app.view, 'nothing changed');
    const stranger = await registerDeveloper(platform.console);
    for (const [method, path, body] of [
      ['PATCH', `/apps/${app.clientId}`, { name: 'Mine now' }],
      ['DELETE', `/apps/${app.clientId}`, undefined],
      ['POST', `/apps/${app.clientId}/enable`, {}],
      ['POST', `/sandbox-players/${playerId}/disable`, {}],
    ] as const) {
      assertProblem(
        await consoleCall(platform.console, method, path, { token: stranger.token, body }),
        404,
        'NOT_FOUND',
      );
    }
    await api('POST', `/apps/${app.clientId}/disable`, { body: {} });
    assertProblem(
      await api('PATCH', `/apps/${app.clientId}`, { body: { name: 'While disabled' } }),
      409,
      'APP_DISABLED',
    );
  });
});

describe('disabling, enabling and deleting an app', () => {
  test('disabled then enabled: its tokens stop, then work again; both audited', async () => {
    const app = await createApp();
    const tokens = await consent(app);
    const appTokenBefore = (await clientCredentials(app)).json.access_token as string;
    assert.equal((await api('POST', `/apps/${app.clientId}/disable`, { body: {} })).json.status, 'disabled');
    assertProblem(await me(tokens), 401, 'INVALID_TOKEN');
    const enabled = await api('POST', `/apps/${app.clientId}/enable`, { body: {} });
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(enabled.json.status, 'active');
    assert.equal((await me(tokens)).status, 200, 'its consents stood');
    assert.equal((await cities(appTokenBefore)).status, 200);
    assert.equal((await clientCredentials(app)).status, 200);
    assert.equal((await auditOf('app.enable', app.clientId)).length, 1);
    const again = await api('POST', `/apps/${app.clientId}/enable`, { body: {} });
    assert.equal(again.json.status, 'active', 'enabling an active app changes nothing');
    assert.equal((await auditOf('app.enable', app.clientId)).length, 1, 'and records nothing');
  });

  test('deleted: tokens stop on the next call, consents end with consent.revoked app_deleted, the app is gone and its client id never works again', async () => {
    const app = await createApp();
    const tokens = await consent(app);
    const appToken = (await clientCredentials(app)).json.access_token as string;
    const deleted = await api('DELETE', `/apps/${app.clientId}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.json.status, 'deleted');

    assertProblem(await me(tokens), 401, 'INVALID_TOKEN');
    assertProblem(await cities(appToken), 401, 'INVALID_TOKEN');
    assert.equal((await clientCredentials(app)).json.error, 'invalid_client');
    assert.equal((await refresh(platform.base, app, tokens.refreshToken)).json.error, 'invalid_client');
    const [event] = await revokedEvents(app);
    assert.equal(event?.reason, 'app_deleted');
    assert.equal(event?.consent_id, tokens.consentId);
    const consentRow = await prisma().consent.findUniqueOrThrow({ where: { id: tokens.consentId } });
    assert.equal(consentRow.status, 'revoked');

    assertProblem(await api('GET', `/apps/${app.clientId}`), 404, 'NOT_FOUND');
    assertProblem(await api('DELETE', `/apps/${app.clientId}`), 404, 'NOT_FOUND');
    assertProblem(await api('POST', `/apps/${app.clientId}/enable`, { body: {} }), 404, 'NOT_FOUND');
    const listed = (await api('GET', '/apps')).json.data as AppView[];
    assert.ok(!listed.some((each) => each.client_id === app.clientId), 'gone from the list');
    const [record] = await auditOf('app.delete', app.clientId);
    assert.equal(record?.consents_ended, 1);
    // The row stays, so the unique client id can never be handed out again.
    assert.equal((await prisma().app.findUniqueOrThrow({ where: { clientId: app.clientId } })).status, 'deleted');
  });
});

describe('sandbox players', () => {
  test('disabled: its tokens answer 403 ACCESS_DENIED on the next call; enabled: 200 again; both audited', async () => {
    const app = await createApp();
    const tokens = await consent(app);
    const disabled = await api('POST', `/sandbox-players/${playerId}/disable`, { body: {} });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.json.status, 'disabled');
    assertProblem(await me(tokens), 403, 'ACCESS_DENIED');
    const enabled = await api('POST', `/sandbox-players/${playerId}/enable`, { body: {} });
    assert.equal(enabled.json.status, 'active');
    assert.equal((await me(tokens)).status, 200);
    const actions = await prisma().auditRecord.findMany({
      where: { actorId: developer.id, targetId: playerId, action: { in: ['player.disable', 'player.enable'] } },
      orderBy: { createdAt: 'asc' },
    });
    assert.deepEqual(
      actions.map((record) => record.action),
      ['player.disable', 'player.enable'],
    );
    assertProblem(await api('POST', '/sandbox-players/not-a-player/disable', { body: {} }), 404, 'NOT_FOUND');
  });
});
