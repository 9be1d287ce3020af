// The console's web UI as a page app: every path that is not the JSON API's. Sandbox only: switched
// off, every path answers a 503 page.
import { html, type Logger, pageApp, type RenderErrorPage, requestObserver } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import type Koa from 'koa';
import type { ConsoleDomain } from '../console-domain.ts';
import { refusalsAsProblems, switchedOff } from '../doors.ts';
import { assetRoutes } from './assets.ts';
import { messagePage } from './pages.ts';
import { consoleWebPages } from './routes.ts';

// Signing in again and a switched-off console get pages of their own.
const errorPage: RenderErrorPage = ({ title, message, problem }) => {
  switch (problem?.code) {
    case 'NOT_SIGNED_IN':
      return messagePage({ title: 'Signed out' }, message, html`<a href="/signin">Sign in</a>`);
    case 'FEATURE_DISABLED':
      return messagePage({ title: 'Console unavailable' }, message, '');
    default:
      return messagePage({ title }, message);
  }
};

export interface ConsoleWebOptions {
  /** Served over https: Secure cookies with the __Host- prefix, X-Forwarded-* trusted. */
  secure: boolean;
  /** BASE_URL: the API the app pages' first-call snippets call. */
  apiBase: string;
  /** TRUSTED_PROXIES: believe X-Forwarded-* from these peers alone. */
  trustedProxies: readonly string[] | null;
  enabled: boolean;
  metrics?: Metrics;
}

export function buildConsoleWeb(
  domain: ConsoleDomain,
  logger: Logger,
  { secure, apiBase, trustedProxies, enabled, metrics }: ConsoleWebOptions,
): Koa {
  const { app, route } = pageApp({
    logger,
    errorPage,
    forwarded: { secure, trustedProxies },
    guard: enabled ? refusalsAsProblems : switchedOff,
    observe: metrics && requestObserver(metrics, 'console-web'),
    // The console's own script (copy buttons, the live request log): script-src and connect-src 'self'.
    scripts: true,
  });
  assetRoutes(route);
  consoleWebPages(route, domain, { secure, apiBase, logger });
  return app;
}
