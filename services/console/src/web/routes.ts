// The console's web UI on {console_url}: the same domain operations as the JSON API, behind a
// cookie session. Every form carries a CSRF token (the session's, or before sign-in a
// double-submit cookie), pages forbid framing, and the cookie is HttpOnly, SameSite=Strict and
// Secure (__Host-) when the console is served over https. Each resource's pages live in their own
// module; this file composes them.

import type { PageApp } from '@devplat/http';
import type { ConsoleDomain } from '../console-domain.ts';
import { accountPages } from './account.ts';
import { apiKeyPages } from './api-keys.ts';
import { appPages } from './apps.ts';
import { type WebSettings, webRoutes } from './context.ts';
import { historyPages } from './history.ts';
import { playerPages } from './players.ts';
import { requestLogPages } from './request-log.ts';
import { secretPages } from './secrets.ts';
import { webhookPages } from './webhooks.ts';

export function consoleWebPages(route: PageApp['route'], domain: ConsoleDomain, settings: WebSettings): void {
  const web = webRoutes(route, domain, settings);
  for (const resource of [
    accountPages,
    apiKeyPages,
    appPages,
    secretPages,
    webhookPages,
    historyPages,
    playerPages,
    requestLogPages,
  ]) {
    resource(web);
  }
}
