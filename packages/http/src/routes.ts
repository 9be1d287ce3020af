import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { ProblemError } from './problem.ts';

type Method = 'GET' | 'POST';

/**
 * Registers an operation and, on the same path, 405 for every other method with an Allow
 * header. HEAD is allowed wherever GET is, as HTTP requires.
 */
export function operation(router: Router, method: Method, path: string, ...handlers: Middleware[]): void {
  const allow = method === 'GET' ? 'GET, HEAD' : method;
  router.register(path, method === 'GET' ? ['GET', 'HEAD'] : [method], handlers as never);
  router.all(path, methodNotAllowed(allow));
}

export function methodNotAllowed(allow: string): Middleware {
  return (ctx) => {
    throw new ProblemError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed here. Allowed: ${allow}.`, {
      Allow: allow,
    });
  };
}

/** The last middleware: nothing answered, so the path does not exist. */
export function notFound(): Middleware {
  return (ctx) => {
    throw new ProblemError('NOT_FOUND', `No operation exists at ${ctx.path}.`);
  };
}

/** Every method on an area outside the contract, and below it, answers FEATURE_DISABLED. */
export function featureDisabled(router: Router, areas: readonly string[]): void {
  for (const area of areas) {
    router.all([area, `${area}/{*rest}`], () => {
      throw new ProblemError('FEATURE_DISABLED', `${area.slice(1)} is outside this API and not enabled.`);
    });
  }
}

/**
 * The contract's platform switch, fixed at start: while it is off, the sandbox audience answers
 * FEATURE_DISABLED; while it is on, there is nothing to run. Spread it before an operation's handlers.
 */
export function platformSwitch(enabled: boolean): Middleware[] {
  return enabled ? [] : [platformOff];
}

const platformOff: Middleware = () => {
  throw new ProblemError('FEATURE_DISABLED', 'The developer platform is switched off in this environment.');
};
