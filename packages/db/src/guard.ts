// The database boundary's backstop: a statement with a parameter PostgreSQL cannot store (storable.ts)
// is never sent. It fails with UnstorableValueError, a bad value the doors answer 400, instead of
// PostgreSQL's 22021 or 22008 reaching them as a 500. The doors refuse such values first, each as
// its contract says (an unknown client, a bad filter); this catches what one of them missed.
import type { ArgType, SqlMigrationAwareDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import { type ParameterType, unstorableParameter } from './storable.ts';

const parameterTypes: Partial<Record<ArgType['scalarType'], ParameterType>> = {
  string: 'text',
  enum: 'text',
  uuid: 'text',
  json: 'json',
  datetime: 'instant',
};

/** The error for a statement's first parameter PostgreSQL cannot store, or null. */
export function unstorableArgument(values: readonly unknown[], types: readonly (ParameterType | undefined)[] = []) {
  for (const [index, value] of values.entries()) {
    const refused = unstorableParameter(value, types[index]);
    if (refused) return refused;
  }
  return null;
}

const statements = new Set(['queryRaw', 'executeRaw']);

const isQueryable = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && typeof (value as { queryRaw?: unknown }).queryRaw === 'function';

/** The adapter factory, its adapters and their transactions, each statement checked before it goes. */
export function refusingUnstorable(
  factory: SqlMigrationAwareDriverAdapterFactory,
): SqlMigrationAwareDriverAdapterFactory {
  return checked(factory);
}

function checked<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (statements.has(property as string)) {
          const { args: values, argTypes } = args[0] as SqlQuery;
          const types = argTypes?.map((type) => parameterTypes[type.scalarType]);
          const refused = unstorableArgument(values, types);
          if (refused) return Promise.reject(refused);
        }
        const result = value.apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.then((resolved) => (isQueryable(resolved) ? checked(resolved) : resolved));
      };
    },
  });
}
