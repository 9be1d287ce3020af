// The console JSON API at {console_url}/api (its endpoints are listed in docs/console.md),
// for the devplat CLI and scripts. API clients authenticate with the bearer token POST /api/sessions
// returns; no cookie is read here, so no request can ride on a browser's ambient credentials (the web
// UI has its own routes). Each resource's routes live in their own module; this file composes them.

import { type Logger, operation, ProblemError } from '@devplat/http';
import Router from '@koa/router';
import type { ConsoleDomain } from '../domain/index.ts';
import { accountRoutes } from './account.ts';
import { appRoutes } from './apps.ts';
import { type ApiRoutes, bearerSignIn } from './context.ts';
import { historyRoutes } from './history.ts';
import { playerRoutes } from './players.ts';
import { secretRoutes } from './secrets.ts';
import { webhookRoutes } from './webhooks.ts';

export function consoleApiRouter(domain: ConsoleDomain, logger: Logger): Router {
  const router = new Router({ prefix: '/api', strict: true, sensitive: true });
  const guard = bearerSignIn(domain);
  const signedIn: ApiRoutes['signedIn'] = (path, handlers) => operation(router, path, handlers, guard);
  const routes: ApiRoutes = { router, domain, logger, signedIn };
  for (const resource of [accountRoutes, appRoutes, secretRoutes, webhookRoutes, historyRoutes, playerRoutes]) {
    resource(routes);
  }
  // Production credentials stay closed until a security review opens production (contract rule 3).
  router.all(['/production-credentials', '/apps/:clientId/production-credentials'], () => {
    throw new ProblemError(
      'FEATURE_DISABLED',
      'Production credentials are not available: only sandbox apps exist until a security review opens production.',
    );
  });
  return router;
}
