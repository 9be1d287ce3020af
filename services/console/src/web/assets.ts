// The console's one script file, /assets/console.js (assets/console.js): read once at start and
// served to every page of the console, which loads it deferred. Its pages allow it by
// `script-src 'self'` (and its stream by `connect-src 'self'`), never an inline script.
import { readFileSync } from 'node:fs';
import type { PageApp } from '@devplat/http';

export const consoleScript = '/assets/console.js';

const source = readFileSync(new URL('./assets/console.js', import.meta.url));

export function assetRoutes(route: PageApp['route']): void {
  route(consoleScript, {
    GET: (ctx) => {
      ctx.type = 'text/javascript; charset=utf-8';
      // Not the pages' no-store: the script is the same for every reader, until the next release.
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = source;
    },
  });
}
