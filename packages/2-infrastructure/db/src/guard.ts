// The database boundary's backstop: a statement with a parameter PostgreSQL cannot store (storable.ts)
// is never sent. It fails with UnstorableValueError, a bad value the doors answer 400, instead of
// PostgreSQL's 22021 or 22008 reaching them as a 500. The doors refuse such values first, each as
// its contract says (an unknown client, a bad filter); this catches what one of them missed.
import type { ArgType, SqlMigrationAwareDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import { type AdapterHooks, wrapAdapter } from './adapter-proxy.ts';
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

/** The statement's refusal, when one of its parameters cannot be stored. */
export function unstorableStatement({ args: values, argTypes }: SqlQuery) {
  return unstorableArgument(
    values,
    argTypes?.map((type) => parameterTypes[type.scalarType]),
  );
}

/** The hooks of refusingUnstorable, for a wrapper that does more (connect.ts). */
export const refusingUnstorableHooks: AdapterHooks = { refuse: unstorableStatement };

/** The adapter factory, its adapters and their transactions, each statement checked before it goes. */
export function refusingUnstorable(
  factory: SqlMigrationAwareDriverAdapterFactory,
): SqlMigrationAwareDriverAdapterFactory {
  return wrapAdapter(factory, refusingUnstorableHooks);
}
