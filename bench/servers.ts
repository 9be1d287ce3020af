// The servers of the benchmarks, each in its own process so the load generator does not share
// their event loop. Prints one JSON line: where to send requests and with what.
//   node bench/servers.ts token   the platform's token endpoint, a sandbox app in it
//   node bench/servers.ts sign    a bare Koa route signing an equal Ed25519 JWT
//   node bench/servers.ts api     /cities with an app token, /me with a user token
//   node bench/servers.ts hello   a bare Koa hello-world route
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigningKey, loadConfig } from '@devplat/config';
import { registerAccount } from '@devplat/domain/accounts';
import { createApp } from '@devplat/domain/apps';
import { listen, readForm } from '@devplat/http';
import { startPlatform } from '@devplat/platform';
import { createTestDatabase } from '@devplat/test/database';
import { sharedSecrets } from '@devplat/test/env';
import { basicAuth } from '@devplat/test/oauth';
import { consentOverHttp, createPlayer } from '@devplat/test/players';
import { freePort } from '@devplat/test/process';
import { replicaBase, startTestTopology } from '@devplat/test/topology';
import type { Replica } from '@devplat/topology';
import { importJWK, SignJWT } from 'jose';
import Koa from 'koa';

export interface Target {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  backend: string;
}

const tokenForm = 'grant_type=client_credentials';
const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

// The whole platform on a fresh database of its own (on DATABASE_URL's server, or an in-memory
// PGlite), dropped on exit, with a developer account in it.
async function benchPlatform() {
  const config = loadConfig({
    ...process.env,
    ...sharedSecrets, // required with REDIS_URL, as for any process sharing state
    LOG_LEVEL: 'warn',
    MANAGEMENT_PORT: '0',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'devplat-bench-')),
    BASE_URL: `http://127.0.0.1:${await freePort()}/developer/v1`,
    PLAYER_CLIENT_URL: `http://127.0.0.2:${await freePort()}`,
    AUTH_INTERNAL_URL: `http://127.0.0.1:${await freePort()}`,
    MOCK_BASE_URL: `http://127.0.0.1:${await freePort()}/developer/v1`,
  });
  const database = await createTestDatabase({ seed: true });
  const running = await startPlatform(config, { database });
  process.once('SIGTERM', async () => {
    await running.close();
    await database.drop();
    process.exit(0);
  });
  const prisma = running.database.prisma;
  const account = await benchAccount(prisma);
  const base = running.urls['Public API'] as string;
  const backend = `${running.database.kind}${config.redisUrl ? ' + Redis' : ''}`;
  return { running, prisma, account, base, backend };
}

/** The developer account every benchmark's app belongs to. */
function benchAccount(prisma: Parameters<typeof registerAccount>[0]) {
  return registerAccount(prisma, {
    email: `bench-${randomUUID()}@developer.test`,
    passwordHash: 'unused',
    displayName: 'Bench',
  });
}

/** An app of the benchmark's account, and its secret. */
function benchApp(
  prisma: Parameters<typeof createApp>[0],
  accountId: string,
  scopes: string[],
  redirectUris: string[] = [],
) {
  return createApp(prisma, { accountId }, { accountId, name: 'Bench', redirectUris, scopes });
}

async function token(): Promise<Target> {
  const { prisma, account, base, backend } = await benchPlatform();
  const { app, clientSecret } = await benchApp(prisma, account.id, ['city.public.read']);
  return {
    method: 'POST',
    url: `${base}/oauth/token`,
    headers: { ...formHeaders, authorization: basicAuth(app.clientId, clientSecret) },
    body: tokenForm,
    backend,
  };
}

async function sign(): Promise<Target> {
  const key = generateSigningKey();
  const privateKey = await importJWK({ ...key, alg: 'EdDSA' }, 'EdDSA');
  const app = new Koa();
  app.use(async (ctx) => {
    await readForm(ctx);
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({
      scope: 'city.public.read',
      client_id: 'svc_bench',
      env: 'sandbox',
      csid: 'x',
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid })
      .setSubject('svc_bench')
      .setIssuer('http://127.0.0.1/developer/v1')
      .setAudience('http://127.0.0.1/developer/v1')
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { access_token: accessToken, token_type: 'Bearer', expires_in: 300, scope: 'city.public.read' };
  });
  const server = await listen(app.callback(), '127.0.0.1', 0);
  return {
    method: 'POST',
    url: `${server.origin}/token`,
    headers: { ...formHeaders, authorization: 'Basic eDp5' },
    body: tokenForm,
    backend: 'none',
  };
}

// /cities with an app token and /me with a user token from a real consent.
async function api(): Promise<Target & { me: Target }> {
  const { running, prisma, account, base, backend } = await benchPlatform();
  const redirectUri = 'http://127.0.0.1:9/cb';
  const { app, clientSecret } = await benchApp(
    prisma,
    account.id,
    ['city.public.read', 'profile.basic.read'],
    [redirectUri],
  );
  const auth = { ...formHeaders, authorization: basicAuth(app.clientId, clientSecret) };
  const tokenAt = async (body: Record<string, string>) => {
    const answer = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: auth,
      body: new URLSearchParams(body),
    });
    return ((await answer.json()) as { access_token: string }).access_token;
  };
  const player = await createPlayer(prisma, account.id, 'Bench Player');
  const verifier = randomUUID().repeat(2);
  const authorize = new URL(`${running.urls['Player client']}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: 'city.public.read profile.basic.read',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const code = (await consentOverHttp(authorize.href, player)).searchParams.get('code') ?? '';
  const userToken = await tokenAt({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  const appToken = await tokenAt({ grant_type: 'client_credentials' });
  return {
    method: 'GET',
    url: `${base}/cities?limit=100`,
    headers: { authorization: `Bearer ${appToken}` },
    backend,
    me: { method: 'GET', url: `${base}/me`, headers: { authorization: `Bearer ${userToken}` }, backend },
  };
}

/** One auth and one api process behind the gateway: each reached through it and directly. */
async function topology(): Promise<Record<string, Target>> {
  const running = await startTestTopology({}, { auth: 1, api: 1, worker: 0, console: 0 });
  process.once('SIGTERM', async () => {
    await running.close();
    process.exit(0);
  });
  const prisma = running.database.prisma;
  const account = await benchAccount(prisma);
  const { app, clientSecret } = await benchApp(prisma, account.id, ['city.public.read']);
  const backend = 'PostgreSQL + Redis';
  const headers = { ...formHeaders, authorization: basicAuth(app.clientId, clientSecret) };
  const tokenAt = (base: string): Target => ({
    method: 'POST',
    url: `${base}/oauth/token`,
    headers,
    body: tokenForm,
    backend,
  });
  const gateway = tokenAt(running.base);
  const answer = await fetch(gateway.url, { method: 'POST', headers, body: tokenForm });
  const bearer = { authorization: `Bearer ${((await answer.json()) as { access_token: string }).access_token}` };
  const citiesAt = (base: string): Target => ({
    method: 'GET',
    url: `${base}/cities?limit=100`,
    headers: bearer,
    backend,
  });
  const only = (service: 'auth' | 'api') => replicaBase(running.of(service)[0] as Replica);
  return {
    'token via gateway': gateway,
    'token direct': tokenAt(only('auth')),
    '/cities via gateway': citiesAt(running.base),
    '/cities direct': citiesAt(only('api')),
  };
}

async function hello(): Promise<Target> {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = 'hello';
  });
  const server = await listen(app.callback(), '127.0.0.1', 0);
  return { method: 'GET', url: `${server.origin}/hello`, headers: {}, backend: 'none' };
}

const builders: Record<string, () => Promise<Target | Record<string, Target>>> = { token, sign, api, hello, topology };
const mode = process.argv[2] ?? '';
if (!builders[mode]) {
  process.stderr.write(`usage: servers.ts ${Object.keys(builders).join('|')}\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await (builders[mode] as () => Promise<unknown>)())}\n`);
