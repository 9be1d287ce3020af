// The image's entry point: `node /app/infra/container/service.mjs <command> [arguments]` runs one
// service in this very process (node stays PID 1 and gets SIGTERM itself; no npm, no toolchain).
import { fileURLToPath } from 'node:url';

const entryPoints = {
  auth: 'services/auth/src/main.ts',
  api: 'services/api/src/main.ts',
  console: 'services/console/src/main.ts',
  worker: 'services/worker/src/main.ts',
  mock: 'services/mock/src/main.ts',
  migrate: 'packages/2-infrastructure/db/scripts/migrate.ts',
  // The janitor is one of the admin commands (services/admin), run as a one-shot job.
  janitor: 'services/admin/src/main.ts',
  admin: 'services/admin/src/main.ts',
  // The admin API (services/admin/src/serve.ts): a service, on its own listener; ADMIN_HOST stays
  // loopback unless the deployment opens it (Kubernetes: behind a NetworkPolicy).
  'admin-api': 'services/admin/src/serve.ts',
};

const usage = `usage: <image> <command> [arguments]
commands: ${Object.keys(entryPoints).join(', ')}
  auth, api, console, worker, mock  a service (docs/operating.md: ports, probes; docs/configuration.md: settings)
  migrate                           apply the database migrations to DATABASE_URL, then exit
  janitor [options]                 delete what has expired (admin janitor --help), then exit
  admin <command> ...               an operator command (admin help)
  admin-api                         the operators' admin API (docs/operating.md, "The admin API")
`;

const [command, ...rest] = process.argv.slice(2);
if (command === undefined || command === 'help' || command === '--help') {
  process.stdout.write(usage);
  process.exit(command === undefined ? 64 : 0);
}
const entryPoint = entryPoints[command];
if (entryPoint === undefined) {
  process.stderr.write(`unknown command "${command}"\n${usage}`);
  process.exit(64); // EX_USAGE
}
const file = fileURLToPath(new URL(`../../${entryPoint}`, import.meta.url));
// The module reads its own arguments from process.argv, as when node runs it directly.
process.argv = [process.argv[0], file, ...(command === 'janitor' ? ['janitor', ...rest] : rest)];
await import(file);
