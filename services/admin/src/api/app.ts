// The admin API: JSON over HTTP under /admin/v1 on a listener of its own (ADMIN_HOST:ADMIN_PORT),
// never behind the gateway, for operators holding a token of the operator tokens file. Built on
// the platform's JSON API stack (apiApp: Problems, 404, 405 with Allow, the body limit, one log
// line per request, which names the operator). Each resource is a module of its own, listed here.
import type { AppDirectory } from '@devplat/app-directory';
import type { PrismaClient } from '@devplat/db';
import { apiApp, jsonBodyLimit, type Logger, requestObserver } from '@devplat/http';
import type { WatchedTokens } from '@devplat/keys';
import type { Metrics } from '@devplat/metrics';
import type { TokenUsage } from '@devplat/usage';
import Router from '@koa/router';
import type Koa from 'koa';
import { accountRoutes } from './accounts.ts';
import { appRoutes } from './apps.ts';
import { auditRoutes } from './audit.ts';
import { authenticate } from './authenticate.ts';
import { consentRoutes } from './consents.ts';
import { documentRoutes } from './document.ts';
import { type FailedAttempts, failedAttempts } from './failures.ts';
import { listingRoutes } from './listings.ts';
import { operatorLogger } from './operator-log.ts';
import { playerRoutes } from './players.ts';
import { refusalsAsProblems } from './refusals.ts';
import { type AdminResource, adminRoutes } from './routes.ts';

export const adminApiPath = '/admin/v1';

const resources: AdminResource[] = [
  documentRoutes,
  listingRoutes,
  accountRoutes,
  playerRoutes,
  appRoutes,
  consentRoutes,
  auditRoutes,
];

export interface AdminApiDependencies {
  prisma: PrismaClient;
  directory: AppDirectory;
  /** The token counters on the process's store (reads only). */
  usage: TokenUsage;
  /** PAIRWISE_SECRET, to end consents (their consent.revoked events name players); null: those routes answer 503. */
  pairwiseSecret: string | null;
  tokens: WatchedTokens;
  logger: Logger;
  metrics?: Metrics;
  /** How failed authentications are slowed (failures.ts's defaults unless given). */
  failures?: FailedAttempts;
}

export function buildAdminApi({
  prisma,
  directory,
  usage,
  pairwiseSecret,
  tokens,
  logger,
  metrics,
  failures,
}: AdminApiDependencies): Koa {
  const log = operatorLogger(logger);
  const router = new Router({ prefix: adminApiPath, strict: true, sensitive: true });
  const guard = authenticate(tokens, failures ?? failedAttempts(), log);
  const routes = adminRoutes(router, guard, { prisma, directory, usage, pairwiseSecret, logger: log });
  for (const resource of resources) resource(routes);
  const observe = metrics && requestObserver(metrics, 'admin-api');
  return apiApp({ logger: log, maxBodyBytes: jsonBodyLimit, observe }, refusalsAsProblems, router);
}
