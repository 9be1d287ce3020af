import { type AppDirectory, appDirectory } from '@devplat/app-directory';
import type { Config, Secrets } from '@devplat/config';
import { wirePrefix } from '@devplat/config';
import type { PrismaClient, Query } from '@devplat/db';
import { apiApp, appObserver, type Closer, type Logger, operation, platformSwitch } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';
import { flushRequestLogEvery, type RequestLog, requestLog } from '@devplat/request-log';
import { noopTracing, type Tracing } from '@devplat/tracing';
import { flushUsageEvery, type TokenUsage, tokenUsage } from '@devplat/usage';
import Router from '@koa/router';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import mount from 'koa-mount';
import type Provider from 'oidc-provider';
import { appTokens } from './grants/app-tokens.ts';
import { buildInternalApp } from './internal.ts';
import { authorizationServerMetadata } from './metadata.ts';
import { oauthTelemetry } from './oauth-telemetry.ts';
import { buildPlayerClientApp } from './player/app.ts';
import { createProvider } from './provider.ts';
import { providerAnswers } from './provider-answers.ts';
import { recordTokenRequests } from './request-log.ts';
import { revokeJwtAccessTokens } from './revocation.ts';
import { watchSigningKeyAge } from './signing-key-age.ts';

export interface AuthDependencies {
  config: Config;
  secrets: Secrets;
  prisma: PrismaClient;
  /** The driver's plain statements (the token endpoint's consent check). */
  query: Query;
  store: KeyValueStore;
  logger: Logger;
  metrics?: Metrics;
  tracing?: Tracing;
}

/** Where RFC 8414 clients look for an issuer with a path, beside the contract's location. */
export const rfc8414Path = `/.well-known/oauth-authorization-server${wirePrefix}`;
/** The public paths the auth service answers; a gateway routes these to it. */
export const authPaths = [`${wirePrefix}/oauth/`, `${wirePrefix}/.well-known/`, rfc8414Path];

export interface AuthService {
  /** Token, revocation and metadata under /developer/v1 (behind the {base_url} gateway). */
  api: Koa;
  /** The player client on PLAYER_CLIENT_URL: sign-in and the consent screen. */
  playerClient: Koa;
  /** AUTH_INTERNAL_URL: the JWKS the api service verifies with. */
  internal: Koa;
  /**
   * The apps' request log as this process notes it (the token and revocation calls): the
   * one-process platform's api notes its calls in it too.
   */
  requestLog: RequestLog;
  /** What the drain runs before it closes the stores: the usage bookkeeping's and request log's last flush. */
  closers: Closer[];
}

export function buildAuthService(deps: AuthDependencies): AuthService {
  // One directory (one cache of apps) for the provider, the grant served ahead of it and the consent screen.
  const apps = appDirectory(deps.prisma, deps.store, deps.metrics);
  const provider = createProvider({ ...deps, apps });
  // Each app's tokens and each secret's last use, for operators (show-app): the token endpoint
  // notes them in memory, the timers write them to Redis and PostgreSQL.
  const usage = tokenUsage(deps.store, { prisma: deps.prisma, log: deps.logger.child({ part: 'usage' }) });
  const flushing = flushUsageEvery(usage, deps.config.usage);
  // Each app's calls, for its developer: noted in memory once answered, written every REQUEST_LOG_FLUSH_MS.
  const requests = requestLog(deps.store, deps.config.requestLog, { log: deps.logger.child({ part: 'request-log' }) });
  const flushingRequests = flushRequestLogEvery(requests, deps.config.requestLog.flushMs);
  if (deps.metrics) watchSigningKeyAge(deps.metrics, deps.store, deps.secrets);
  return {
    api: buildTokenApp(deps, provider, usage, apps, requests),
    playerClient: buildPlayerClientApp({
      config: deps.config,
      pairwiseSecret: deps.secrets.pairwiseSecret,
      cookieKeys: deps.secrets.cookieKeys,
      prisma: deps.prisma,
      query: deps.query,
      store: deps.store,
      provider,
      apps,
      logger: deps.logger.child({ part: 'player-client' }),
      metrics: deps.metrics,
    }),
    internal: buildInternalApp(deps.secrets, deps.logger, deps.metrics),
    requestLog: requests,
    closers: [
      { name: 'usage bookkeeping', close: () => flushing.stop() },
      { name: 'request log', close: () => flushingRequests.stop() },
    ],
  };
}

function buildTokenApp(
  { config, secrets, prisma, logger, metrics, tracing }: AuthDependencies,
  provider: Provider,
  usage: TokenUsage,
  apps: AppDirectory,
  requests: RequestLog,
): Koa {
  const telemetry = oauthTelemetry(metrics, tracing, usage);
  const answers = providerAnswers(provider, revokeJwtAccessTokens(config, secrets, prisma, provider), logger);
  const toProvider = mount(wirePrefix, provider as unknown as Koa);
  const metadata = authorizationServerMetadata(config);
  const on = platformSwitch(config.platformEnabled);
  const serveMetadata: Middleware = (ctx) => {
    ctx.body = metadata;
  };

  const router = new Router({ strict: true, sensitive: true });
  const appTokensFirst = appTokens({ config, secrets, apps, tracing: tracing ?? noopTracing, logger });
  operation(router, `${wirePrefix}/oauth/token`, {
    POST: [...on, telemetry, answers.token, appTokensFirst, toProvider],
  });
  operation(router, `${wirePrefix}/oauth/revoke`, { POST: [...on, telemetry, answers.revocation, toProvider] });
  operation(router, `${wirePrefix}/.well-known/oauth-authorization-server`, { GET: [...on, serveMetadata] });
  operation(router, rfc8414Path, { GET: [...on, serveMetadata] });
  const observe = appObserver('auth', metrics, recordTokenRequests(requests));
  const forwarded = { secure: config.baseUrl.protocol === 'https:', trustedProxies: config.trustedProxies };
  return apiApp({ logger, keys: secrets.cookieKeys, forwarded, observe }, router);
}
