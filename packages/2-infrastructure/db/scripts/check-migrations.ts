// node packages/2-infrastructure/db/scripts/check-migrations.ts [dir]: the expand/contract migration policy
// (scripts/migration-policy.ts) over every migration in prisma/migrations, or in dir. A CI check:
// prints each finding on one line and a count, and exits 1 on any finding, so a migration the
// previous release cannot run beside, or that the migrate path cannot apply, never ships.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { prismaDir } from '../src/paths.ts';
import { checkMigrations, formatFinding, formatSummary, type MigrationSource } from './migration-policy.ts';

function readMigrationSources(baseDir: string): MigrationSource[] {
  const directories = readdirSync(baseDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return directories.map((name) => {
    const file = join(baseDir, name, 'migration.sql');
    return { name, sql: existsSync(file) ? readFileSync(file, 'utf8') : null };
  });
}

const baseDir = resolve(process.argv[2] ?? join(prismaDir, 'migrations'));
if (!existsSync(baseDir)) {
  console.error(`check-migrations: no such directory ${baseDir}`);
  process.exit(2);
}
const report = checkMigrations(readMigrationSources(baseDir));
for (const finding of report.findings) console.log(formatFinding(finding));
console.log(formatSummary(report));
process.exitCode = report.findings.length ? 1 : 0;
