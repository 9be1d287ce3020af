// What /readyz asks of PostgreSQL: that it answers (through both pools), and that its schema is
// one this build runs on: its own, or a newer one that only added (schema-version.ts), which the
// check's answer names.
import type { Database } from './connect.ts';
import { schemaNote, schemaProblem, schemaState } from './schema-version.ts';

/** Shaped as the management listener's ReadinessCheck: resolves (with what it found) or rejects with why not. */
export interface DatabaseCheck {
  name: string;
  check(): Promise<string | undefined>;
}

export function databaseChecks(database: Database): DatabaseCheck[] {
  return [
    {
      name: 'postgresql',
      check: async () => {
        await Promise.all([database.query('SELECT 1', []), database.prisma.$queryRaw`SELECT 1`]);
        return undefined;
      },
    },
    {
      name: 'schema',
      check: async () => {
        const state = await schemaState(database.query);
        const problem = schemaProblem(state);
        if (problem) throw new Error(problem);
        return schemaNote(state);
      },
    },
  ];
}
