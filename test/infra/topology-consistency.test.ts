// The multi-replica topology through its gateway: routing, and what one replica learns every
// other one knows on the very next call (revocations, single use, webhook delivery).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp, PlayerAgent } from '@devplat/test/connected-apps';
import { consoleCall } from '@devplat/test/console-api';
import { assertProblem, call } from '@devplat/test/http';
import { authorizationRequest, basicAuth, discover, insecure, tokenRequest } from '@devplat/test/oauth';
import { consentOverHttp } from '@devplat/test/players';
import { repoRoot } from '@devplat/test/process';
import { consoleSetup, needsStores, replicaBase, startTestTopology, type TestTopology } from '@devplat/test/topology';
import {
  answer,
  eventually,
  startWebhookReceiver,
  verifyWebhook,
  type WebhookReceiver,
} from '@devplat/test/webhook-receiver';
import * as oauth from 'oauth4webapi';

let topology: TestTopology;
let receiver: WebhookReceiver;

describe('the topology behind its gateway', { skip: needsStores }, () => {
  before(async () => {
    receiver = await startWebhookReceiver(answer(204));
    topology = await startTestTopology({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true', WEBHOOK_POLL_MS: '100' });
  });
  after(async () => {
    await topology?.close();
    await receiver?.close();
  });

  const apiBases = () => topology.of('api').map(replicaBase);
  const authBases = () => topology.of('auth').map(replicaBase);

  /** A client-credentials token through the gateway, as an app gets one. */
  async function appToken(app: { clientId: string; clientSecret: string }) {
    const as = await discover(topology.base);
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretBasic(app.clientSecret),
      new URLSearchParams({ scope: 'city.public.read' }),
      insecure,
    );
    return (await oauth.processClientCredentialsResponse(as, { client_id: app.clientId }, response)).access_token;
  }

  /** The token works at every api replica (each has looked it up, so each holds it in its caches). */
  async function worksEverywhere(path: string, token: string) {
    for (const base of [...apiBases(), topology.base]) {
      const answer = await call(base, path, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(answer.status, 200, `${base}${path}: ${answer.text}`);
    }
  }

  async function refusedEverywhere(path: string, token: string, status: number, code: string) {
    for (const base of apiBases()) {
      assertProblem(await call(base, path, { headers: { authorization: `Bearer ${token}` } }), status, code);
    }
  }

  test('the gateway routes the auth paths to auth and the rest to api; never the internal JWKS or a management path', async () => {
    for (const path of [
      '/developer/v1/.well-known/oauth-authorization-server',
      '/.well-known/oauth-authorization-server/developer/v1',
    ]) {
      const response = await fetch(new URL(path, topology.base));
      assert.equal(response.status, 200, path);
      const metadata = (await response.json()) as Record<string, string>;
      assert.equal(metadata.issuer, topology.base);
      assert.equal(metadata.token_endpoint, `${topology.base}/oauth/token`);
      assert.equal(metadata.authorization_endpoint, `${topology.playerClient}/oauth/authorize`);
    }
    const capabilities = await call(topology.base, '/capabilities');
    assert.equal(capabilities.status, 200);
    assert.equal(capabilities.headers.get('x-service-api-version'), '1.0');
    assertProblem(await call(topology.base, '/nowhere'), 404, 'NOT_FOUND');
    for (const origin of [new URL(topology.base).origin, topology.playerClient, topology.console]) {
      for (const path of ['/jwks.json', '/livez', '/readyz', '/metrics', '/developer/v1/oauth/jwks']) {
        const response = await fetch(`${origin}${path}`, { redirect: 'manual' });
        const text = await response.text();
        assert.ok(response.status === 404 || response.status === 302, `${origin}${path}: ${response.status}`);
        assert.doesNotMatch(text, /"keys"|devplat_http_request|"status":"(alive|ready)"/, `${origin}${path}`);
      }
    }
    const signIn = await fetch(`${topology.playerClient}/signin`);
    assert.equal(signIn.status, 200, 'the player client host reaches the player client');
    assert.match(await signIn.text(), /<form/);
  });

  test('the admin API runs beside the gateway on loopback; the gateway has no route to it', async () => {
    const [admin] = topology.of('admin');
    assert.ok(admin?.ports.admin, 'one admin process with a port of its own');
    // Its own listener answers (its document, which needs no token), on 127.0.0.1.
    const own = new URL(topology.urls['Admin API']);
    assert.equal(own.hostname, '127.0.0.1');
    assert.equal(own.port, String(admin.ports.admin));
    const document = await fetch(`${own.href}/openapi.yaml`);
    assert.equal(document.status, 200);
    assert.match(await document.text(), /^openapi: 3\.1\.1\n/);
    // nginx's configuration, as rendered for the topology, names neither of its ports.
    const config = readFileSync(topology.gateway.configFile, 'utf8');
    for (const port of [admin.ports.admin, admin.ports.management]) {
      assert.doesNotMatch(config, new RegExp(`:${port}\\b`), `the gateway routes nothing to port ${port}`);
    }
    // And nothing the gateway serves is the admin API.
    for (const origin of [new URL(topology.base).origin, topology.playerClient, topology.console]) {
      for (const path of ['/admin/v1/openapi.yaml', '/admin/v1/accounts/nobody@developer.test']) {
        const response = await fetch(`${origin}${path}`, { redirect: 'manual' });
        const text = await response.text();
        assert.ok(response.status === 404 || response.status === 302, `${origin}${path}: ${response.status}`);
        assert.doesNotMatch(text, /openapi: |devplat-admin/, `${origin}${path}`);
      }
    }
  });

  test('with every replica of a service down, the gateway answers the contract’s 503 Problem, not an HTML page', async () => {
    const [first, second] = topology.of('api');
    await Promise.all([first?.stop('SIGKILL'), second?.stop('SIGKILL')]);
    try {
      const answer = await call(topology.base, '/capabilities');
      assertProblem(answer, 503, 'SERVICE_UNAVAILABLE');
      assert.match(answer.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    } finally {
      await Promise.all([first?.start(), second?.start()]);
    }
    await eventually(async () => (await call(topology.base, '/capabilities')).status === 200, 5_000);
  });

  test('a revoked secret, a disabled app, a suspended account: refused on the very next call at every api replica', async () => {
    const { api, app, developer } = await consoleSetup(topology);

    // The secret: a second one is made, the first revoked; a token made with the first stops.
    const rotated = await api('POST', `/apps/${app.clientId}/secrets`);
    assert.equal(rotated.status, 201);
    const oldSecretToken = await appToken(app);
    await worksEverywhere('/cities?limit=100', oldSecretToken);
    assert.equal((await api('DELETE', `/apps/${app.clientId}/secrets/${app.secretId}`)).status, 204);
    await refusedEverywhere('/cities?limit=100', oldSecretToken, 401, 'INVALID_TOKEN');
    const current = { clientId: app.clientId, clientSecret: rotated.json.client_secret as string };

    // The app: disabled through the console.
    const second = await api('POST', '/apps', {
      name: 'Second',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      scopes: ['city.public.read'],
    });
    const secondApp = {
      clientId: second.json.app.client_id as string,
      clientSecret: second.json.client_secret as string,
    };
    const secondToken = await appToken(secondApp);
    await worksEverywhere('/cities?limit=100', secondToken);
    assert.equal((await api('POST', `/apps/${secondApp.clientId}/disable`, {})).status, 200);
    await refusedEverywhere('/cities?limit=100', secondToken, 401, 'INVALID_TOKEN');

    // The account: suspended by an operator's command.
    const currentToken = await appToken(current);
    await worksEverywhere('/cities?limit=100', currentToken);
    const suspended = await admin(['suspend-account', developer.email, '--operator', 'topology test']);
    assert.equal(suspended.code, 0, suspended.output);
    await refusedEverywhere('/cities?limit=100', currentToken, 401, 'INVALID_TOKEN');
    const refusedAtToken = await call(topology.base, '/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(current.clientId, current.clientSecret),
      },
      body: 'grant_type=client_credentials&scope=city.public.read',
    });
    assert.equal(refusedAtToken.status, 401);
    assert.equal(refusedAtToken.json.error, 'invalid_client');
  });

  test('a revoked refresh token and Remove access: 403 CONSENT_REVOKED on the very next call at every api replica', async () => {
    const { app, players } = await consoleSetup(topology, { players: 2 });
    const [revoking, removing] = players as [(typeof players)[0], (typeof players)[0]];

    const revoked = await allowOverHttp(topology.base, app, revoking);
    await worksEverywhere('/me', revoked.accessToken);
    const revocation = await call(topology.base, '/oauth/revoke', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(app.clientId, app.clientSecret),
      },
      body: new URLSearchParams({ token: revoked.refreshToken }).toString(),
    });
    assert.equal(revocation.status, 200);
    await refusedEverywhere('/me', revoked.accessToken, 403, 'CONSENT_REVOKED');

    const removed = await allowOverHttp(topology.base, app, removing);
    await worksEverywhere('/me', removed.accessToken);
    const agent = new PlayerAgent(topology.playerClient);
    await agent.signIn(removing);
    const { csrf } = await agent.connectedApps();
    assert.equal((await agent.remove({ csrf, client_id: app.clientId })).status, 303);
    await refusedEverywhere('/me', removed.accessToken, 403, 'CONSENT_REVOKED');
  });

  test('50 parallel redemptions of one code over both auth replicas: at most one token, and the consent ends', async () => {
    const { app, players } = await consoleSetup(topology);
    const redirectUri = app.app.redirectUris[0] as string;
    const request = await authorizationRequest(topology.base, app.clientId, redirectUri, 'profile.basic.read');
    const back = await consentOverHttp(request.url, players[0] as never);
    const code = back.searchParams.get('code') as string;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        tokenRequest(authBases()[index % 2] as string, app, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: request.verifier,
        }),
      ),
    );
    const wins = answers.filter((answer) => answer.status === 200);
    assert.ok(wins.length <= 1, `${wins.length} redemptions succeeded`);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.error, 'invalid_grant');
    }
    for (const win of wins) await refusedEverywhere('/me', win.json.access_token, 403, 'CONSENT_REVOKED');
  });

  test('50 parallel uses of one refresh token over both auth replicas: at most one succeeds, and the consent ends', async () => {
    const { app, players } = await consoleSetup(topology);
    const tokens = await allowOverHttp(topology.base, app, players[0] as never);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        tokenRequest(authBases()[index % 2] as string, app, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refreshToken,
        }),
      ),
    );
    assert.ok(answers.filter((answer) => answer.status === 200).length <= 1);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      assert.equal(refused.json.error, 'invalid_grant', refused.text);
    }
    await refusedEverywhere('/me', tokens.accessToken, 403, 'CONSENT_REVOKED');
  });

  test("a call through any auth or api replica is in the app's request log, read through the console", async () => {
    const { app, developer } = await consoleSetup(topology);
    const [firstAuth, secondAuth] = authBases() as [string, string];
    const token = await tokenRequest(firstAuth, app, { grant_type: 'client_credentials', scope: 'city.public.read' });
    assert.equal(token.status, 200, token.text);
    const wrongSecret = await tokenRequest(
      secondAuth,
      { ...app, clientSecret: 'not the secret' },
      {
        grant_type: 'client_credentials',
      },
    );
    assert.equal(wrongSecret.status, 401);
    const [, secondApi] = apiBases() as [string, string];
    const cities = await call(secondApi, '/cities?limit=100', {
      headers: { authorization: `Bearer ${token.json.access_token}` },
    });
    assert.equal(cities.status, 200, cities.text);
    const expected = [token, wrongSecret, cities].map((answer) => answer.headers.get('x-request-id') as string);
    const entries = await eventually(async () => {
      const response = await consoleCall(topology.console, 'GET', `/apps/${app.clientId}/requests`, {
        token: developer.token,
      });
      assert.equal(response.status, 200);
      const data = response.json.data as { request_id: string; operation: string; error: string | null }[];
      return expected.every((id) => data.some((entry) => entry.request_id === id)) && data;
    }, 5_000);
    const seen = (id: string) => {
      const entry = entries.find((candidate) => candidate.request_id === id);
      return entry && { operation: entry.operation, error: entry.error };
    };
    assert.deepEqual(expected.map(seen), [
      { operation: 'token', error: null },
      { operation: 'token', error: 'invalid_client' },
      { operation: 'cities', error: null },
    ]);
  });

  test('two workers deliver each consent event once', async () => {
    const { app, players } = await consoleSetup(topology, { webhookUrl: receiver.url, players: 6 });
    receiver.behave(answer(204));
    await Promise.all(players.map((player) => allowOverHttp(topology.base, app, player)));
    const mine = () =>
      receiver.received.filter((webhook) => {
        const event = verifyWebhook(app.signingSecret, webhook) as { data: { app: string } };
        return event.data.app === app.clientId;
      });
    await eventually(() => mine().length >= players.length);
    // Long enough for the other worker to send a duplicate if its claim were not exclusive.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const ids = mine().map((webhook) => webhook.headers['webhook-id']);
    assert.equal(new Set(ids).size, players.length, 'one consent.granted event per consent');
    assert.equal(ids.length, players.length, 'each delivered once');
  });

  function admin(args: string[]): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['services/admin/src/main.ts', ...args], {
        cwd: repoRoot,
        env: topology.env,
      });
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      child.on('exit', (code) => resolve({ code, output }));
    });
  }
});
