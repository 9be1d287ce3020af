// The console JSON API at {console_url}/api (its endpoints are listed in docs/console.md),
// for the devplat CLI and scripts. API clients authenticate with the bearer token POST /api/sessions
// returns, or with an API key; no cookie is read here, so no request can ride on a browser's
// ambient credentials (the web UI has its own routes). Each resource's routes live in their own
// module; this file composes them.

import { type Logger, operation, ProblemError } from '@devplat/http';
import Router from '@koa/router';
import type { ConsoleDomain } from '../console-domain.ts';
import { accountRoutes } from './account.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { appRoutes } from './apps.ts';
import { type ApiRoutes, bearerSignIn } from './context.ts';
import { historyRoutes } from './history.ts';
import { playerRoutes } from './players.ts';
import { consoleRequestChecks } from './request-checks.ts';
import { requestLogRoutes } from './request-log.ts';
import { secretRoutes } from './secrets.ts';
import { triggerRoutes } from './triggers.ts';
import { webhookRoutes } from './webhooks.ts';

export function consoleApiRouter(domain: ConsoleDomain, logger: Logger): Router {
  const router = new Router({ prefix: '/api', strict: true, sensitive: true });
  const guards = { any: bearerSignIn(domain, logger, 'any'), session: bearerSignIn(domain, logger, 'session') };
  // Each handler behind the check of its operation in the console API's document.
  const checked = consoleRequestChecks();
  const signedIn: ApiRoutes['signedIn'] = (path, handlers, access = 'any') =>
    operation(router, path, checked(path, handlers), guards[access]);
  const open: ApiRoutes['open'] = (path, handlers) => operation(router, path, checked(path, handlers));
  const routes: ApiRoutes = { router, domain, logger, signedIn, open };
  const resources = [
    accountRoutes,
    apiKeyRoutes,
    appRoutes,
    secretRoutes,
    webhookRoutes,
    historyRoutes,
    playerRoutes,
    requestLogRoutes,
    triggerRoutes,
  ];
  for (const resource of resources) {
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
