// The servers of the benchmarks, each in its own process so the load generator does not share
// their event loop. Prints one JSON line: where to send requests and with what.
//   node bench/servers.ts token   the platform's token endpoint, a sandbox app in it
//   node bench/servers.ts sign    a bare Koa route signing an equal Ed25519 JWT
//   node bench/servers.ts api     /cities with an app token, /me with a user token
//   node bench/servers.ts hello   a bare Koa hello-world route
//   node bench/servers.ts verify <api target>   a bare Koa route verifying /cities' token, writing its bytes
//   node bench/servers.ts refresh <n>   the token endpoint's refresh_token grant, n token families minted
//   node bench/servers.ts refresh-bare <json>   a bare route: one Redis round trip and one signature
//   node bench/servers.ts refresh-essential <json>   the bare route plus the consent's liveness read
//   node bench/servers.ts refresh-engine <json>   oidc-provider alone (engine-floor.ts) plus the liveness read
//   node bench/servers.ts code <n>   the player client and token endpoint, n players
//   node bench/servers.ts code-bare <json>   a bare app answering the flow's three requests
//   node bench/servers.ts code-essential <json>   the bare app plus the consent's transaction on Allow
//   node bench/servers.ts code-engine <json>   the essential app's screen, oidc-provider's code and token endpoint
//   node bench/servers.ts console   the console API's app read and request log, a signed-in developer
//   node bench/servers.ts scale-topology <json>   auth and api replicas under CPU limits behind the gateway
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, generateSigningKey, loadConfig } from '@devplat/config';
import { groupCommit, openDatabase, type Query } from '@devplat/db';
import { registerAccount } from '@devplat/domain/accounts';
import { createApp } from '@devplat/domain/apps';
import { activeConsentIdsOfGrants, activeConsentsWithApp, grantConsent } from '@devplat/domain/consents';
import { findPlayerByUsername } from '@devplat/domain/players';
import { listen, readForm } from '@devplat/http';
import { type RedisClient, redisClientOf, redisStore } from '@devplat/kv';
import { startPlatform } from '@devplat/platform';
import { consoleCall, registerDeveloper } from '@devplat/test/console-api';
import { createTestDatabase } from '@devplat/test/database';
import { sharedSecrets } from '@devplat/test/env';
import { basicAuth } from '@devplat/test/oauth';
import { consentOverHttp, createPlayer, createPlayers } from '@devplat/test/players';
import { freePort } from '@devplat/test/process';
import { replicaBase, startTestTopology } from '@devplat/test/topology';
import type { Replica } from '@devplat/topology';
import { Redis } from 'ioredis';
import {
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  type JWTHeaderParameters,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import Koa from 'koa';
import { issueCode } from '../services/auth/src/player/authorize.ts';
import { engineProvider } from './engine-floor.ts';
import { codeFlow, type FlowTarget, signInAll, type TokenAnswer } from './flows.ts';

export interface Target {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  backend: string;
  /**
   * Single-use refresh tokens: each request takes one and gives back the one it was answered
   * with (run.ts), so no token is ever presented twice.
   */
  refreshTokens?: string[];
  /**
   * Forms sent in turn, one per request, from the first again once all were sent (run.ts): the
   * revocations, each of another token.
   */
  forms?: string[];
  /** What the server runs with (a platform: its log level and the rest of production's settings). */
  settings?: string;
  /**
   * Where a fresh bearer token for `headers.authorization` comes from before each round (access
   * tokens last 300 s, a run longer): a client-credentials form, or a refresh token rotated each time.
   */
  bearer?: { url: string; headers: Record<string, string>; body?: string; refreshToken?: string };
  /** Connections to load it with, where not the suite's. */
  connections?: number;
  /** A topology's: the processes of the target's service, their CPU limits' cpu.stat files, their number. */
  servicePids?: number[];
  cpuStats?: string[];
  replicas?: number;
  /** Where its processes write their log files (one each), if they do. */
  logDir?: string;
}

const tokenForm = 'grant_type=client_credentials';
/** What a floor's process clears before it exits (the keys its store wrote). */
const beforeExit: (() => Promise<void>)[] = [];
const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

/** The Redis the servers run on, as the benchmark's header names it. */
function redisShape(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REDIS_CLUSTER_NODES) return 'Redis Cluster';
  if (env.REDIS_SENTINELS) return 'Redis with Sentinel';
  return env.REDIS_URL ? 'one Redis (REDIS_URL)' : 'the in-memory store (no Redis)';
}

/**
 * What a benchmarked platform runs with. Production's defaults, as a Deployment without overrides
 * has them: LOG_LEVEL info (a line per request), metrics, the request log and usage counts (always
 * on), tracing off (no OTLP endpoint). A row without something sets it in its environment (run.ts).
 */
function settingsOf(logLevel: string): string {
  const tracing = process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return (
    `LOG_LEVEL=${logLevel}, metrics, request log and usage counts on, tracing ${tracing ? 'on' : 'off'}; ` +
    `${redisShape()}`
  );
}

// The whole platform on a fresh database of its own (on DATABASE_URL's server, or an in-memory
// PGlite), dropped on exit, with a developer account in it; or, with BENCH_DATABASE_URL, on that
// database (one npm run seed:scale filled), kept. Its log lines go to stdout, which run.ts drains
// as a container runtime would.
async function benchPlatform() {
  const config = loadConfig({
    ...process.env,
    ...sharedSecrets, // required with REDIS_URL, as for any process sharing state
    MANAGEMENT_PORT: '0',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'devplat-bench-')),
    BASE_URL: `http://127.0.0.1:${await freePort()}/developer/v1`,
    PLAYER_CLIENT_URL: `http://127.0.0.2:${await freePort()}`,
    AUTH_INTERNAL_URL: `http://127.0.0.1:${await freePort()}`,
    // Its own console port too: a suite runs two platforms at once (the row at warn beside).
    CONSOLE_URL: `http://127.0.0.3:${await freePort()}`,
    MOCK_BASE_URL: `http://127.0.0.1:${await freePort()}/developer/v1`,
  });
  const database = await benchDatabase();
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
  const databaseUrl = database.url;
  return { running, config, prisma, account, base, backend, databaseUrl, settings: settingsOf(config.logLevel) };
}

/**
 * The platform's database, on production's connection settings (its pool and bounds, as a service
 * opens it): a fresh test database's copy, or BENCH_DATABASE_URL's. PGlite is in the process.
 */
async function benchDatabase() {
  const kept = process.env.BENCH_DATABASE_URL?.trim();
  const fresh = kept ? null : await createTestDatabase({ seed: true });
  const url = kept ?? fresh?.url;
  if (!url) return fresh as NonNullable<typeof fresh>;
  const database = await openDatabase({ databaseUrl: url, pgliteDir: null });
  const drop = async () => {
    await database.close();
    await fresh?.drop();
  };
  return { ...database, url, drop };
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
  const { prisma, account, base, backend, settings } = await benchPlatform();
  const { app, clientSecret } = await benchApp(prisma, account.id, ['city.public.read']);
  return {
    method: 'POST',
    url: `${base}/oauth/token`,
    headers: { ...formHeaders, authorization: basicAuth(app.clientId, clientSecret) },
    body: tokenForm,
    backend,
    settings,
  };
}

/**
 * RFC 7009 revocation of app tokens: each request revokes another token the platform issued (its
 * jti goes on the revoked list in PostgreSQL), `argument` of them minted before the load. A token
 * sent again once all were is revoked again: the same verification and the same statement.
 */
async function revoke(): Promise<Target> {
  const tokens = argument(20_000);
  const target = await token();
  const minted: string[] = [];
  const mint = async () => {
    while (minted.length < tokens) {
      const answer = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
      if (!answer.ok) throw new Error(`minting a token to revoke answered ${answer.status}: ${await answer.text()}`);
      minted.push(((await answer.json()) as { access_token: string }).access_token);
    }
  };
  await Promise.all(Array.from({ length: 10 }, mint));
  return {
    ...target,
    url: target.url.replace(/\/token$/, '/revoke'),
    body: undefined,
    forms: minted.map((each) => `token=${each}&token_type_hint=access_token`),
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
async function api(): Promise<Target & { me: Target; jwks: string; issuer: string }> {
  const { running, config, prisma, account, base, backend, settings } = await benchPlatform();
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
    return (await answer.json()) as TokenAnswer;
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
  const appToken = (await tokenAt({ grant_type: 'client_credentials' })).access_token;
  const tokenUrl = `${base}/oauth/token`;
  return {
    method: 'GET',
    url: `${base}/cities?limit=100`,
    headers: { authorization: `Bearer ${appToken}` },
    bearer: { url: tokenUrl, headers: auth, body: tokenForm },
    backend,
    settings,
    // For the bare route (verify): the key set and issuer it checks this token against.
    jwks: running.urls['Internal JWKS'] as string,
    issuer: config.baseUrl.href,
    me: {
      method: 'GET',
      url: `${base}/me`,
      headers: { authorization: `Bearer ${userToken.access_token}` },
      bearer: { url: tokenUrl, headers: auth, refreshToken: userToken.refresh_token },
      backend,
      settings,
    },
  };
}

/**
 * `argument` auth and as many api processes (one by default) behind the gateway: each reached
 * through it, and the first of each directly.
 */
async function topology(): Promise<Record<string, Target>> {
  const replicas = argument(1);
  // Each process's lines reach this one through its pipe, as a log collector reads them; counted
  // (to stdout, where run.ts counts the other servers' lines), never kept.
  const running = await startTestTopology(
    {},
    { auth: replicas, api: replicas, worker: 0, console: 0 },
    undefined,
    (line) => process.stdout.write(`${line}\n`),
  );
  const settings = settingsOf(process.env.LOG_LEVEL ?? 'info');
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
    settings,
  });
  const gateway = tokenAt(running.base);
  const answer = await fetch(gateway.url, { method: 'POST', headers, body: tokenForm });
  const bearer = { authorization: `Bearer ${((await answer.json()) as { access_token: string }).access_token}` };
  const citiesAt = (base: string): Target => ({
    method: 'GET',
    url: `${base}/cities?limit=100`,
    headers: bearer,
    backend,
    settings,
  });
  const only = (service: 'auth' | 'api') => replicaBase(running.of(service)[0] as Replica);
  return {
    'token via gateway': gateway,
    'token direct': tokenAt(only('auth')),
    '/cities via gateway': citiesAt(running.base),
    '/cities direct': citiesAt(only('api')),
  };
}

/** A topology's shape for bench:scale: replicas of auth and api, and each one's CPU limit. */
interface ScaleShape {
  auth: number;
  api: number;
  cpus: number;
  /** Refresh-token families to mint (each request rotates one). */
  families: number;
  /** Where each process writes its lines itself ('files', as a container runtime), or through this process ('pipe'). */
  logs: 'files' | 'pipe';
}

/**
 * bench:scale's topology: `auth` and `api` replicas behind the gateway, each limited to `cpus`, no
 * worker or console. Through the gateway: client-credentials tokens and refreshes (auth), /cities
 * with an app token and /me with a user token (api); each target names the processes of its
 * service and their CPU limits, for run.ts to meter.
 */
async function scaleTopology(): Promise<Record<string, Target>> {
  const shape = argument<ScaleShape>({ auth: 1, api: 1, cpus: 0.1, families: 100, logs: 'files' });
  const logDir = mkdtempSync(join(tmpdir(), 'devplat-scale-logs-'));
  const running = await startTestTopology(
    {},
    { auth: shape.auth, api: shape.api, worker: 0, console: 0 },
    undefined,
    (line) => process.stdout.write(`${line}\n`),
    { cpuLimits: { auth: shape.cpus, api: shape.cpus }, ...(shape.logs === 'files' && { logDir }) },
  );
  process.once('SIGTERM', async () => {
    await running.close();
    rmSync(logDir, { recursive: true, force: true });
    process.exit(0);
  });
  const settings = `${settingsOf(process.env.LOG_LEVEL ?? 'info')}; ${shape.auth} auth and ${shape.api} api replicas, ${shape.cpus} CPU each`;
  const backend = 'PostgreSQL + Redis';
  const prisma = running.database.prisma;
  const account = await benchAccount(prisma);
  const { app, clientSecret } = await benchApp(prisma, account.id, userScope.split(' '), [consentRedirectUri]);
  const players = await createPlayers(prisma, account.id, 8, 'Bench Player');
  const flows = consentFlows(running.playerClient, running.base, { app, clientSecret }, players, backend, settings);
  const answers = await mintFamilies(flows, shape.families + 1);
  const headers = { ...formHeaders, authorization: flows.authorization };
  const tokenAnswer = await fetch(flows.tokenUrl, { method: 'POST', headers, body: tokenForm });
  const appToken = ((await tokenAnswer.json()) as { access_token: string }).access_token;
  // The first family is /me's: its refresh token gives /me a fresh access token before each round.
  const userToken = answers.shift() as TokenAnswer;
  const metered = (service: 'auth' | 'api') => ({
    servicePids: running.of(service).map((each) => each.pid() as number),
    cpuStats: running.of(service).map((each) => join(each.cpuLimit?.group as string, 'cpu.stat')),
    replicas: running.of(service).length,
    logDir: shape.logs === 'files' ? logDir : undefined,
  });
  const at = (path: string, service: 'auth' | 'api', more: Partial<Target>): Target => ({
    method: 'GET',
    url: `${running.base}${path}`,
    headers: {},
    backend,
    settings,
    ...metered(service),
    ...more,
  });
  return {
    token: at('/oauth/token', 'auth', { method: 'POST', headers, body: tokenForm }),
    refresh: at('/oauth/token', 'auth', {
      method: 'POST',
      headers,
      body: 'grant_type=refresh_token',
      refreshTokens: answers.map((each) => each.refresh_token),
    }),
    '/cities': at('/cities?limit=100', 'api', {
      headers: { authorization: `Bearer ${appToken}` },
      bearer: { url: flows.tokenUrl, headers, body: tokenForm },
    }),
    '/me': at('/me', 'api', {
      headers: { authorization: `Bearer ${userToken.access_token}` },
      bearer: { url: flows.tokenUrl, headers, refreshToken: userToken.refresh_token },
    }),
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

/** The JSON a server mode takes after its name (what run.ts learned from another server). */
const argument = <T>(fallback: T): T => (process.argv[3] ? (JSON.parse(process.argv[3]) as T) : fallback);

/** The bytes /cities answers and the token it gets, verified once, remembered by its bytes as the
 * platform's api does (services/api/src/bearer.ts) until it expires; with BENCH_VERIFY=every,
 * verified on every call. The key is imported once. */
async function verify(): Promise<Target> {
  const cities = argument<Target & { jwks: string; issuer: string }>({} as never);
  const captured = await fetch(cities.url, { headers: cities.headers });
  const bytes = Buffer.from(await captured.arrayBuffer());
  if (captured.status !== 200) throw new Error(`/cities answered ${captured.status}: ${bytes}`);
  const type = captured.headers.get('content-type') ?? 'application/json';
  const { kid } = decodeProtectedHeader((cities.headers.authorization ?? '').slice('Bearer '.length));
  const { keys } = (await (await fetch(cities.jwks)).json()) as { keys: JWK[] };
  const key = await importJWK(keys.find((jwk) => jwk.kid === kid) as JWK, 'EdDSA');
  const everyCall = process.env.BENCH_VERIFY === 'every';
  const verified = new Map<string, { token: string; expiresAt: number }>();
  const app = new Koa();
  app.use(async (ctx) => {
    const header = ctx.get('Authorization');
    if (header.slice(0, 7).toLowerCase() !== 'bearer ') ctx.throw(401);
    const token = header.slice(7);
    const signature = token.slice(token.lastIndexOf('.') + 1);
    const known = verified.get(signature);
    if (everyCall || known?.token !== token || known.expiresAt <= Date.now()) {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['EdDSA'],
        typ: 'at+jwt',
        issuer: cities.issuer,
        audience: cities.issuer,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      });
      verified.set(signature, { token, expiresAt: (payload.exp as number) * 1000 });
    }
    ctx.type = type;
    ctx.body = bytes;
  });
  const server = await listen(app.callback(), '127.0.0.1', 0);
  // A fresh token before each round, as /cities gets (run.ts): a run outlasts the first one's 300 s.
  return {
    method: 'GET',
    url: `${server.origin}/cities?limit=100`,
    headers: cities.headers,
    bearer: cities.bearer,
    backend: 'none',
  };
}

/** What the bare routes need of a store: a write, a key taken, and a key consumed and another written in one round trip. */
interface BareStore {
  put(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Deletes `from` and stores its value at `to`, atomically; resolves with the value, null if there was none. */
  move(from: string, to: string, ttlSeconds: number): Promise<string | null>;
  /** Deletes a key and resolves with its value (GETDEL), null if there was none. */
  take(key: string): Promise<string | null>;
  backend: string;
  /** The ioredis client, with the store's prefix; null in memory. */
  redis: RedisClient | null;
}

/**
 * Redis through the platform's own client (ioredis as @devplat/kv configures it), on REDIS_URL;
 * a map in memory without it, as the platform's store then is.
 */
async function bareStore(): Promise<BareStore> {
  const url = process.env.REDIS_URL;
  if (!url) {
    const values = new Map<string, string>();
    const take = async (key: string) => {
      const value = values.get(key) ?? null;
      values.delete(key);
      return value;
    };
    return {
      put: async (key, value) => void values.set(key, value),
      move: async (from, to) => {
        const value = await take(from);
        if (value !== null) values.set(to, value);
        return value;
      },
      take,
      backend: 'memory',
      redis: null,
    };
  }
  const prefix = `bench-bare:${randomUUID()}:`;
  const store = redisStore(url, { prefix, timeoutMs: 2_000 });
  await store.ready();
  // Tokens rotated by the engine floor stay for the refresh token's 30 days: none is left behind.
  beforeExit.push(async () => {
    const unprefixed = new Redis(url);
    for await (const keys of unprefixed.scanStream({ match: `${prefix}*`, count: 1_000 }))
      if ((keys as string[]).length) await unprefixed.unlink(...(keys as string[]));
    unprefixed.disconnect();
  });
  const redis = redisClientOf(store) as RedisClient & {
    move(from: string, to: string, seconds: number): Promise<string | null>;
  };
  redis.defineCommand('move', {
    numberOfKeys: 2,
    lua: "local v = redis.call('GETDEL', KEYS[1]) if v then redis.call('SET', KEYS[2], v, 'EX', ARGV[1]) end return v",
  });
  return {
    put: async (key, value, ttl) => void (await redis.set(key, value, 'EX', ttl)),
    move: (from, to, ttl) => redis.move(from, to, ttl),
    take: (key) => redis.getdel(key),
    backend: 'Redis',
    redis,
  };
}

/** The header and claims of one of the platform's access tokens. */
interface TokenShape {
  header: JWTHeaderParameters;
  payload: JWTPayload;
}

const shapeOf = (token: string): TokenShape => ({
  header: decodeProtectedHeader(token) as JWTHeaderParameters,
  payload: decodeJwt(token),
});

/** Signs access tokens of that shape (its claims, a fresh jti, iat and exp) with an Ed25519 key of its own. */
async function signerLike({ header, payload }: TokenShape) {
  const key = generateSigningKey();
  const privateKey = await importJWK({ ...key, alg: 'EdDSA' }, 'EdDSA');
  const lifetime = (payload.exp ?? 300) - (payload.iat ?? 0);
  return () => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ ...payload, jti: randomBytes(24).toString('base64url'), iat: now, exp: now + lifetime })
      .setProtectedHeader({ ...header, kid: key.kid })
      .sign(privateKey);
  };
}

/** The token endpoint's answer, as the platform words it. */
const tokenAnswer = async (sign: () => Promise<string>, refreshToken: string, scope: unknown) => ({
  access_token: await sign(),
  expires_in: 300,
  token_type: 'Bearer',
  refresh_token: refreshToken,
  scope,
});

const userScope = 'city.public.read profile.basic.read';
const consentRedirectUri = 'http://127.0.0.1:9/cb';

/** Code flows of the consenting app's players, on the player client at `playerOrigin` and `{base_url}`. */
function consentFlows(
  playerOrigin: string,
  base: string,
  { app, clientSecret }: { app: { clientId: string }; clientSecret: string },
  players: FlowTarget['players'],
  backend: string,
  settings: string,
): FlowTarget {
  return {
    playerOrigin,
    tokenUrl: `${base}/oauth/token`,
    clientId: app.clientId,
    redirectUri: consentRedirectUri,
    scope: userScope,
    authorization: basicAuth(app.clientId, clientSecret),
    players,
    backend,
    settings,
  };
}

/**
 * The platform with an app players consent to, and `count` players of its account (one password,
 * hashed once for all of them).
 */
async function consentPlatform(count: number) {
  const { running, prisma, account, base, backend, settings, databaseUrl } = await benchPlatform();
  const { app, clientSecret } = await benchApp(prisma, account.id, userScope.split(' '), [consentRedirectUri]);
  const players = await createPlayers(prisma, account.id, count, 'Bench Player');
  const target = consentFlows(
    running.urls['Player client'] as string,
    base,
    { app, clientSecret },
    players,
    backend,
    settings,
  );
  return { target, prisma, app, databaseUrl };
}

/** Where an essential floor does the platform's PostgreSQL work: its database, its app and players. */
interface EssentialDatabase {
  /** The platform's database (null on PGlite, which lives in the platform's process). */
  databaseUrl: string | null;
  appId: string;
  clientId: string;
}

/** The ids of the bench's players, by their usernames (through the players' own store). */
async function playerIdsOf(prisma: Parameters<typeof findPlayerByUsername>[0], players: { username: string }[]) {
  const found = await Promise.all(players.map(({ username }) => findPlayerByUsername(prisma, username)));
  return found.flatMap((player) => (player ? [player.id] : []));
}

/** The grants behind the players' active consents with the app (through the consents' own store). */
async function liveGrantIds(
  prisma: Parameters<typeof activeConsentsWithApp>[0],
  clientId: string,
  players: { username: string }[],
) {
  const ids = await playerIdsOf(prisma, players);
  const consents = (await Promise.all(ids.map((id) => activeConsentsWithApp(prisma, id, clientId)))).flat();
  return consents.flatMap(({ grantId }) => (grantId ? [grantId] : []));
}

/** The platform's database as an essential floor opens it: production's pool and bounds. */
function platformDatabase({ databaseUrl }: EssentialDatabase) {
  if (!databaseUrl) throw new Error('the essential floor needs DATABASE_URL (PostgreSQL)');
  return openDatabase({ databaseUrl, pgliteDir: null });
}

/**
 * The refresh_token grant with `families` refresh tokens, each of its own grant, made through the
 * platform's real endpoints: players signed in, each consenting again and again (authorize, Allow,
 * code redeemed). One more family is refreshed once, for the shape of a refreshed access token.
 */
async function refresh(): Promise<
  Target & { shape: TokenShape; essential: EssentialDatabase & { grantIds: string[]; playerIds: string[] } }
> {
  const families = argument(100);
  const { target: flows, prisma, app, databaseUrl } = await consentPlatform(Math.min(families, 16));
  const answers = await mintFamilies(flows, families + 1);
  const last = answers.pop() as TokenAnswer;
  const refreshed = await fetch(flows.tokenUrl, {
    method: 'POST',
    headers: { ...formHeaders, authorization: flows.authorization },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: last.refresh_token }),
  });
  const answer = (await refreshed.json()) as TokenAnswer;
  if (refreshed.status !== 200) throw new Error(`refresh answered ${refreshed.status}: ${JSON.stringify(answer)}`);
  return {
    ...refreshTarget(flows, [...answers, answer]),
    shape: shapeOf(answer.access_token),
    essential: {
      databaseUrl,
      appId: app.id,
      clientId: app.clientId,
      grantIds: await liveGrantIds(prisma, app.clientId, flows.players),
      playerIds: await playerIdsOf(prisma, flows.players),
    },
  };
}

/** `count` refresh tokens, each of a grant of its own: a code flow each, the players' flows side by side. */
async function mintFamilies(flows: FlowTarget, count: number): Promise<TokenAnswer[]> {
  const agents = await signInAll(flows);
  const answers: TokenAnswer[] = [];
  await Promise.all(
    agents.map(async (agent, i) => {
      for (let n = i; n < count; n += agents.length) answers.push(await codeFlow(flows, agent));
    }),
  );
  return answers;
}

/** The refresh_token grant at a flow target's token endpoint, each request presenting one of these families' tokens. */
const refreshTarget = (flows: FlowTarget, families: TokenAnswer[]): Target => ({
  method: 'POST',
  url: flows.tokenUrl,
  headers: { ...formHeaders, authorization: flows.authorization },
  body: 'grant_type=refresh_token',
  backend: flows.backend,
  settings: flows.settings,
  refreshTokens: families.map((each) => each.refresh_token),
});

/**
 * The bare refresh: parses the same form, consumes the presented token's key and writes the next
 * one's in one Redis round trip (GETDEL and SET in a script), and signs an access token of the
 * platform's shape. `families` tokens are written first.
 */
async function refreshBare(): Promise<Target> {
  const { families, shape } = argument<{ families: number; shape: TokenShape }>({} as never);
  return refreshRoute(families, shape, null);
}

/**
 * The essential refresh: the bare route plus what rule 2 requires of every refresh, the consent's
 * liveness read in PostgreSQL: the platform's statement (activeConsentIdsOfGrants), shared by the
 * reads that arrive together as the platform shares it (groupCommit), on the platform's database
 * with production's pool. Each token belongs to one of the platform's live grants.
 */
async function refreshEssential(): Promise<Target> {
  const { families, shape, essential } = argument<{
    families: number;
    shape: TokenShape;
    essential: EssentialDatabase & { grantIds: string[] };
  }>({} as never);
  const { query } = await platformDatabase(essential);
  return refreshRoute(families, shape, { grantIds: essential.grantIds, consentOf: livenessRead(query) });
}

/**
 * The consent's liveness read of a refresh: the platform's statement (activeConsentIdsOfGrants),
 * shared by the reads that arrive together as the platform shares it (groupCommit).
 */
const livenessRead = (query: Query) =>
  groupCommit((grantIds: string[]) => activeConsentIdsOfGrants(query, grantIds), {
    maxBatch: 100,
    timeoutMs: query.timeoutMs,
    dependency: 'PostgreSQL',
  });

/** The refresh route of both floors; with `liveness`, each refresh reads its grant's consent too. */
async function refreshRoute(
  families: number,
  shape: TokenShape,
  liveness: { grantIds: string[]; consentOf: (grantId: string) => Promise<string | null> } | null,
): Promise<Target> {
  const store = await bareStore();
  const sign = await signerLike(shape);
  const ttl = 30 * 24 * 3600;
  const refreshTokens = Array.from({ length: families }, () => randomBytes(32).toString('base64url'));
  const grantOf = (index: number) =>
    JSON.stringify({
      clientId: 'svc_bench',
      scope: shape.payload.scope,
      grantId: liveness ? liveness.grantIds[index % liveness.grantIds.length] : undefined,
    });
  await Promise.all(refreshTokens.map((token, index) => store.put(`rt:${token}`, grantOf(index), ttl)));
  const refused = (ctx: Koa.Context) => {
    ctx.status = 400;
    ctx.body = { error: 'invalid_grant' };
  };
  const app = new Koa();
  app.use(async (ctx) => {
    const form = await readForm(ctx);
    if (ctx.get('Authorization') !== 'Basic eDp5' || form.grant_type !== 'refresh_token') ctx.throw(400);
    const next = randomBytes(32).toString('base64url');
    const saved = await store.move(`rt:${form.refresh_token}`, `rt:${next}`, ttl);
    if (!saved) return refused(ctx);
    const grant = JSON.parse(saved) as { scope: unknown; grantId?: string };
    if (liveness && !(grant.grantId && (await liveness.consentOf(grant.grantId)))) return refused(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await tokenAnswer(sign, next, grant.scope);
  });
  const server = await listen(app.callback(), '127.0.0.1', 0);
  return {
    method: 'POST',
    url: `${server.origin}/token`,
    headers: { ...formHeaders, authorization: 'Basic eDp5' },
    body: 'grant_type=refresh_token',
    backend: liveness ? `postgresql + ${store.backend}` : store.backend,
    refreshTokens,
  };
}

/** The authorization-code flow: `players` players to sign in, and the shape of the tokens a flow ends with. */
async function code(): Promise<
  FlowTarget & { shape: TokenShape; essential: EssentialDatabase & { playerIds: string[] } }
> {
  const players = argument(8);
  const { target: flows, prisma, app, databaseUrl } = await consentPlatform(players + 1);
  // One flow by a player of its own, before the load, for the shape of the access token.
  const [setup] = await signInAll(flows, flows.players.slice(players));
  const answer = await codeFlow(flows, setup as Parameters<typeof codeFlow>[1]);
  const playerIds = await playerIdsOf(prisma, flows.players);
  return {
    ...flows,
    players: flows.players.slice(0, players),
    shape: shapeOf(answer.access_token),
    essential: { databaseUrl, appId: app.id, clientId: app.clientId, playerIds },
  };
}

/**
 * The bare flow: the same three requests, each with one Redis round trip. The consent screen
 * checks the session (in memory) and the request, writes the request and shows a minimal form;
 * Allow consumes the request and writes the code in one script; the token endpoint consumes the
 * code and writes a refresh token in one script, checks redirect_uri and the PKCE verifier, and
 * signs one access token of the platform's shape. Sign-in (before the load) only starts a session.
 */
async function codeBare(): Promise<FlowTarget> {
  const { players, shape } = argument<{ players: number; shape: TokenShape }>({} as never);
  const store = await bareStore();
  return codeApp(players, store, await floorIssuer(store, shape, null));
}

/** What the essential and engine floors of the code flow are given: the platform's players, app and token shape. */
interface CodeFloor {
  players: number;
  shape: TokenShape;
  essential: EssentialDatabase & { playerIds: string[] };
}

/**
 * The essential flow: the bare app plus the consent's one transaction on Allow, as the platform
 * writes it (grantConsent: the consent receipt and its consent.granted outbox event), through
 * Prisma on the platform's database with production's pool, for the platform's app and players.
 */
async function codeEssential(): Promise<FlowTarget> {
  const { players, shape, essential } = argument<CodeFloor>({} as never);
  const { prisma } = await platformDatabase(essential);
  const app = { id: essential.appId, clientId: essential.clientId };
  const pairwiseSecret = randomBytes(32).toString('base64url');
  const player = inTurn(essential.playerIds);
  const consent = async (scope: string) => {
    const grantId = randomBytes(16).toString('base64url');
    await grantConsent(prisma, pairwiseSecret, { app, playerId: player(), grantId, scopes: scope.split(' ') });
  };
  const store = await bareStore();
  return codeApp(players, store, await floorIssuer(store, shape, consent));
}

/**
 * The engine floor of the code flow: the essential floor's consent screen; on Allow the grant and
 * the code made with the engine's own models and the consent's transaction between them, by the
 * platform's own Allow (issueCode); the code redeemed at the engine's token endpoint
 * (engine-floor.ts: oidc-provider as the platform configures it, on a minimal Redis adapter).
 */
async function codeEngine(): Promise<FlowTarget> {
  return engineFlows(argument<CodeFloor>({} as never));
}

/**
 * The engine floor of the refresh_token grant: the code flow's engine, whose own flows mint the
 * families before the load (each grant's consent in the platform's PostgreSQL, as Allow writes
 * it), refreshed at its token endpoint with the consent's liveness read inside the rotation.
 */
async function refreshEngine(): Promise<Target> {
  const { families, ...floor } = argument<Omit<CodeFloor, 'players'> & { families: number }>({} as never);
  const flows = await engineFlows({ ...floor, players: Math.min(families, 16) });
  return refreshTarget(flows, await mintFamilies(flows, families));
}

/** The engine's flow app: the floors' sign-in and consent screen, the engine's codes and token endpoint. */
async function engineFlows({ players, shape, essential }: CodeFloor): Promise<FlowTarget> {
  const store = await bareStore();
  if (!store.redis) throw new Error('the engine floor needs Redis (REDIS_URL)');
  const { prisma, query } = await platformDatabase(essential);
  const client = { clientId: essential.clientId, clientSecret: randomBytes(32).toString('base64url') };
  const issuer = 'http://127.0.0.1/developer/v1';
  // The platform's own claims' values, so that the engine signs tokens of the same size.
  const { env, csid, cns } = shape.payload;
  const provider = engineProvider(store.redis, {
    issuer,
    client: { ...client, redirectUri: consentRedirectUri },
    claims: { env, csid, cns },
    consentOf: livenessRead(query),
  });
  const issuance = {
    config: { baseUrl: new URL(issuer) } as Config,
    provider,
    prisma,
    pairwiseSecret: randomBytes(32).toString('base64url'),
  };
  const app = { id: essential.appId, clientId: essential.clientId } as Parameters<typeof issueCode>[2];
  const player = inTurn(essential.playerIds);
  const answer = provider.callback();
  const flows = await codeApp(players, store, {
    clientId: client.clientId,
    authorization: basicAuth(client.clientId, client.clientSecret),
    backend: `postgresql + ${store.backend}`,
    async allow(requestId, session) {
      const saved = await store.take(`authz:${requestId}`);
      const request = saved ? (JSON.parse(saved) as SavedRequest) : null;
      if (!request || request.session !== session) return null;
      const { redirectUri, state, scope, challenge: codeChallenge } = request;
      const asked = { id: requestId, clientId: client.clientId, redirectUri, state, scopes: scope.split(' ') };
      // The platform's Allow: the grant, the consent's transaction, then the code (expiresAt is the screen's, unread).
      const code = await issueCode(issuance, { ...asked, codeChallenge, expiresAt: Date.now() }, app, player());
      return { code, request };
    },
    token: (ctx) => {
      ctx.respond = false;
      return answer(ctx.req, ctx.res);
    },
  });
  return { ...flows, settings: 'oidc-provider alone on Koa: no request line, metrics, request log or usage' };
}

/** Each call the next value, from the first again once all were given. */
function inTurn<T>(values: T[]): () => T {
  let next = 0;
  return () => values[next++ % values.length] as T;
}

/** A request the consent screen saved, as Allow takes it back. */
interface SavedRequest {
  redirectUri: string;
  state?: string;
  scope: string;
  challenge: string;
  /** The session it was shown to. */
  session: string;
}

/**
 * Who makes and redeems the codes of a flow app: the floors' own routes or the engine. `allow` takes
 * the request its session answered and makes its code (null when the request is gone or another
 * session's); `token` answers the token endpoint.
 */
interface CodeIssuer {
  clientId: string;
  authorization: string;
  backend: string;
  allow(requestId: string, session: string): Promise<{ code: string; request: SavedRequest } | null>;
  token: Koa.Middleware;
}

/**
 * The bare and essential floors' codes: Allow moves the request to its code in one script (then,
 * with `consent`, writes the consent's transaction too); the token endpoint moves the code to a
 * refresh token in one script, checks redirect_uri and the PKCE verifier, and signs.
 */
async function floorIssuer(
  store: BareStore,
  shape: TokenShape,
  consent: ((scope: string) => Promise<void>) | null,
): Promise<CodeIssuer> {
  const sign = await signerLike(shape);
  const authorization = 'Basic eDp5';
  return {
    clientId: 'svc_bench',
    authorization,
    backend: consent ? `postgresql + ${store.backend}` : store.backend,
    async allow(requestId, session) {
      const code = randomBytes(32).toString('base64url');
      const saved = await store.move(`authz:${requestId}`, `code:${code}`, 60);
      const request = saved ? (JSON.parse(saved) as SavedRequest) : null;
      if (!request || request.session !== session) return null;
      await consent?.(request.scope);
      return { code, request };
    },
    async token(ctx) {
      const form = await readForm(ctx);
      if (ctx.get('Authorization') !== authorization || form.grant_type !== 'authorization_code') ctx.throw(400);
      const refreshToken = randomBytes(32).toString('base64url');
      const saved = await store.move(`code:${form.code}`, `rt:${refreshToken}`, 30 * 24 * 3600);
      const request = saved ? (JSON.parse(saved) as SavedRequest) : null;
      const challenge = createHash('sha256')
        .update(form.code_verifier ?? '')
        .digest('base64url');
      if (!request || request.redirectUri !== form.redirect_uri || request.challenge !== challenge) {
        ctx.status = 400;
        ctx.body = { error: 'invalid_grant' };
        return;
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await tokenAnswer(sign, refreshToken, request.scope);
    },
  };
}

/** The flow app of every floor: sign-in and the consent screen in memory, the codes by `issuer`. */
async function codeApp(players: number, store: BareStore, issuer: CodeIssuer): Promise<FlowTarget> {
  const sessions = new Map<string, { csrf: string }>();
  const session = (ctx: Koa.Context) => {
    const id = ctx.cookies.get('player_session');
    return id ? { id, ...sessions.get(id) } : null;
  };
  const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${value}">`;
  const app = new Koa();
  app.use(async (ctx, next) => {
    const route = `${ctx.method} ${ctx.path}`;
    if (route === 'GET /signin') {
      ctx.type = 'html';
      ctx.body = `<form method="post">${field('csrf', 'x')}${field('return_to', '/')}</form>`;
    } else if (route === 'POST /signin') {
      const id = randomBytes(32).toString('base64url');
      sessions.set(id, { csrf: randomBytes(32).toString('base64url') });
      ctx.cookies.set('player_session', id, { sameSite: 'lax' });
      ctx.redirect('/');
    } else if (route === 'GET /oauth/authorize') {
      const current = session(ctx);
      if (!current?.csrf) return ctx.redirect('/signin');
      const q = ctx.query as Record<string, string>;
      if (
        q.client_id !== issuer.clientId ||
        q.redirect_uri !== consentRedirectUri ||
        q.response_type !== 'code' ||
        q.code_challenge_method !== 'S256' ||
        !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge ?? '') ||
        !q.scope
      )
        ctx.throw(400);
      const id = randomBytes(24).toString('base64url');
      const request = { redirectUri: q.redirect_uri, state: q.state, scope: q.scope, challenge: q.code_challenge };
      await store.put(`authz:${id}`, JSON.stringify({ ...request, session: current.id }), 600);
      ctx.type = 'html';
      ctx.body = `<form method="post" action="/oauth/authorize">${field('request', id)}${field('csrf', current.csrf)}<button name="decision" value="allow">Allow</button></form>`;
    } else if (route === 'POST /oauth/authorize') {
      const form = await readForm(ctx);
      const current = session(ctx);
      if (!current?.csrf || form.csrf !== current.csrf || form.decision !== 'allow') return ctx.throw(400);
      const allowed = await issuer.allow(form.request ?? '', current.id);
      if (!allowed) return ctx.throw(400);
      const { code, request } = allowed;
      const back = new URL(request.redirectUri);
      back.searchParams.append('code', code);
      if (request.state !== undefined) back.searchParams.append('state', request.state);
      back.searchParams.append('iss', 'http://127.0.0.1/developer/v1');
      ctx.redirect(back.href);
    } else if (route === 'POST /oauth/token') {
      await issuer.token(ctx, next);
    } else {
      ctx.throw(404);
    }
  });
  const server = await listen(app.callback(), '127.0.0.1', 0);
  return {
    playerOrigin: server.origin,
    tokenUrl: `${server.origin}/oauth/token`,
    clientId: issuer.clientId,
    redirectUri: consentRedirectUri,
    scope: userScope,
    authorization: issuer.authorization,
    players: Array.from({ length: players }, (_, i) => ({ username: `player-${i}`, password: 'unused' })),
    backend: issuer.backend,
  };
}

/**
 * The console API's two most-called reads, as the CLI and scripts call them: an app
 * (`GET /api/apps/{client_id}`, behind every `devplat apps` command about one) and a page of its
 * request log with filters (`GET /api/apps/{client_id}/requests`), with a developer's session
 * token. Both go through everything a console request goes through: the session, the request
 * check by the document, the app's ownership, the answer.
 */
async function consoleApi(): Promise<Target & { requests: Target }> {
  const { config, backend, settings } = await benchPlatform();
  const origin = config.consoleUrl.origin;
  const api = `${origin}/api`;
  const { token } = await registerDeveloper(origin);
  const app = { name: 'Bench', redirect_uris: [], scopes: ['city.public.read'] };
  const created = await consoleCall(origin, 'POST', '/apps', { token, body: app });
  if (created.status !== 201) throw new Error(`POST /api/apps answered ${created.status}: ${created.text}`);
  const clientId = created.json.app.client_id as string;
  const headers = { authorization: `Bearer ${token}` };
  return {
    method: 'GET',
    url: `${api}/apps/${clientId}`,
    headers,
    backend,
    settings,
    requests: {
      method: 'GET',
      url: `${api}/apps/${clientId}/requests?limit=50&status=4xx`,
      headers,
      backend,
      settings,
    },
  };
}

const builders: Record<string, () => Promise<Target | FlowTarget | Record<string, Target>>> = {
  console: consoleApi,
  token,
  revoke,
  sign,
  api,
  hello,
  topology,
  'scale-topology': scaleTopology,
  verify,
  refresh,
  'refresh-bare': refreshBare,
  'refresh-essential': refreshEssential,
  'refresh-engine': refreshEngine,
  code,
  'code-bare': codeBare,
  'code-essential': codeEssential,
  'code-engine': codeEngine,
};
const mode = process.argv[2] ?? '';
if (!builders[mode]) {
  process.stderr.write(`usage: servers.ts ${Object.keys(builders).join('|')}\n`);
  process.exit(2);
}
// The target goes to BENCH_TARGET_FD where run.ts opened one (stdout carries the platform's log
// lines there), else to stdout.
const target = `${JSON.stringify(await (builders[mode] as () => Promise<unknown>)())}\n`;
if (process.env.BENCH_TARGET_FD) writeSync(Number(process.env.BENCH_TARGET_FD), target);
else process.stdout.write(target);
// A floor exits on SIGTERM (rather than by it) once it has cleared what it wrote, so that
// BENCH_PROFILE's --cpu-prof writes its profile too.
if (process.listenerCount('SIGTERM') === 0)
  process.once('SIGTERM', async () => {
    await Promise.allSettled(beforeExit.map((clear) => clear()));
    process.exit(0);
  });
