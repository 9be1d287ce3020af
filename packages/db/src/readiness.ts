// What /readyz asks of PostgreSQL: that it answers (through both pools), and that its schema is
// the one this build expects.
import type { Database } from './connect.ts';
import { schemaVersionProblem } from './schema-version.ts';

/** Shaped as the management listener's ReadinessCheck. */
export interface DatabaseCheck {
  name: string;
  check(): Promise<void>;
}

export function databaseChecks(database: Database): DatabaseCheck[] {
  return [
    {
      name: 'postgresql',
      check: async () => {
        await Promise.all([database.query('SELECT 1', []), database.prisma.$queryRaw`SELECT 1`]);
      },
    },
    {
      name: 'schema',
      check: async () => {
        const problem = await schemaVersionProblem(database.query);
        if (problem) throw new Error(problem);
      },
    },
  ];
}
