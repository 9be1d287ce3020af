// A service's public listener as every entry point opens it (each service alone, and the
// one-process platform): on the host its URL and HOST say (listenHost), named for the log, with
// the routes it answers. A Koa app's requests are traced.
import type { RequestListener } from 'node:http';
import { type Config, listenHost } from '@devplat/config';
import type { Tracing } from '@devplat/tracing';
import type Koa from 'koa';
import type { Site } from './layout.ts';
import { type Route, routesOf } from './route-table.ts';
import { listen } from './server.ts';
import type { NamedListener } from './service.ts';
import { withTracing } from './tracing.ts';

/** What every listener of a process shares: where HOST puts it, and the process's tracing. */
export interface Listening {
  config: Pick<Config, 'host'>;
  tracing: Tracing;
}

/**
 * `listener` on `url`'s host and `port`; `pages` names the page site it serves (its refusals are
 * then pages).
 */
export async function openListener(
  { config }: Pick<Listening, 'config'>,
  name: string,
  listener: RequestListener,
  routes: readonly Route[],
  url: URL,
  port: number,
  pages: Site | null = null,
): Promise<NamedListener> {
  return { name, server: await listen(listener, listenHost(config, url), port, pages), routes };
}

/** The app on a listener of its own (openListener), each request traced. */
export function openAppListener(
  listening: Listening,
  name: string,
  app: Koa,
  url: URL,
  port: number,
  pages: Site | null = null,
): Promise<NamedListener> {
  return openListener(listening, name, withTracing(app, listening.tracing).callback(), routesOf(app), url, port, pages);
}
