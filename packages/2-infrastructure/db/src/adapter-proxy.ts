// One walk over a Prisma driver adapter factory, its adapters and their transactions (each
// adapter or transaction a method resolves to is wrapped in turn): a statement can be checked
// before it is sent (guard.ts) and a failure mapped on its way back (failures.ts). One proxy for
// both, so a statement on the hot path passes through one wrapper, not one per concern.
import type { SqlQuery } from '@prisma/driver-adapter-utils';

export interface AdapterHooks {
  /** Before queryRaw or executeRaw: an error to fail the statement with instead of sending it. */
  refuse?: (query: SqlQuery) => Error | null;
  /** What a rejected call fails with. */
  failure?: (error: unknown) => unknown;
}

const statements = new Set(['queryRaw', 'executeRaw']);

const isQueryable = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && typeof (value as { queryRaw?: unknown }).queryRaw === 'function';

export function wrapAdapter<T extends object>(target: T, hooks: AdapterHooks): T {
  const { refuse, failure } = hooks;
  const rethrow = failure
    ? (error: unknown) => {
        throw failure(error);
      }
    : undefined;
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const refused = refuse && statements.has(property as string) ? refuse(args[0] as SqlQuery) : null;
        if (refused) return Promise.reject(refused);
        const result = value.apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.then((resolved) => (isQueryable(resolved) ? wrapAdapter(resolved, hooks) : resolved), rethrow);
      };
    },
  });
}
