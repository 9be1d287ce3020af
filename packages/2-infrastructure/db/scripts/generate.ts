// Generates the Prisma client into packages/2-infrastructure/db/src/generated (run on every install).
// `prisma generate` needs no schema engine, but the CLI insists on a path to one: any existing
// file satisfies it, and nothing is downloaded.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const result = spawnSync('prisma', ['generate', '--schema', '../../../prisma/schema.prisma'], {
  cwd: packageDir,
  stdio: 'inherit',
  env: {
    ...process.env,
    PATH: `${packageDir}node_modules/.bin:${process.env.PATH}`,
    PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
process.exit(result.status ?? 1);
