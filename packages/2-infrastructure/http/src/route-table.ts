// The routes a Koa app answers, read from its routers (@koa/router's dispatch middleware carries
// its router): for tests and tools that walk every route, so that a route added is walked too.
import { METHODS } from 'node:http';
import type Router from '@koa/router';
import type Koa from 'koa';

export interface Route {
  /** As registered, the router's prefix included: /apps/:clientId, /webhooks/{*rest}. */
  path: string;
  /** The methods it answers (HEAD aside); empty when it answers every method alike (a 405, an area switched off). */
  methods: string[];
}

type Layer = Router['stack'][number];

const answersEveryMethod = (layer: Layer) => METHODS.every((method) => layer.methods.includes(method));

/** Every path the apps' routers hold, in the order registered, each with its own methods. */
export function routesOf(...apps: Koa[]): Route[] {
  const routes = new Map<string, Set<string>>();
  for (const app of apps) {
    for (const middleware of app.middleware) {
      const router = (middleware as { router?: Router }).router;
      for (const layer of router?.stack ?? []) {
        if (layer.methods.length === 0) continue; // router.use: middleware, no route
        const path = String(layer.path);
        const methods = routes.get(path) ?? new Set<string>();
        routes.set(path, methods);
        if (answersEveryMethod(layer)) continue;
        for (const method of layer.methods) if (method !== 'HEAD') methods.add(method);
      }
    }
  }
  return [...routes].map(([path, methods]) => ({ path, methods: [...methods] }));
}
