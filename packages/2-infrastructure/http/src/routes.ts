import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { ProblemError } from './problem.ts';

/** The methods an operation can answer; HEAD comes with GET, as HTTP requires. */
export type OperationMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What an operation answers each of its methods with: one handler or a chain, run in order. */
export type OperationHandlers = Partial<Record<OperationMethod, Middleware | readonly Middleware[]>>;

// The order of the Allow header, whatever the order of the handlers.
const methodOrder: readonly OperationMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Registers an operation: each of its methods with its handlers, behind `guard` when one is given,
 * and, on the same path, 405 with an Allow header for every other method. The 405 runs no guard:
 * a wrong method is refused before anything else is checked.
 */
export function operation(router: Router, path: string, handlers: OperationHandlers, guard?: Middleware): void {
  const allowed: string[] = [];
  for (const method of methodOrder) {
    const handler = handlers[method];
    if (handler === undefined) continue;
    const methods = method === 'GET' ? ['GET', 'HEAD'] : [method];
    allowed.push(...methods);
    const chain = guard ? [guard].concat(handler) : ([] as Middleware[]).concat(handler);
    router.register(path, methods, chain as never);
  }
  router.all(path, methodNotAllowed(allowed.join(', ')));
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
