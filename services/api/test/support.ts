// Starts the api service in this process on a real HTTP server at an ephemeral port.

import { type Config, loadConfig } from '@devplat/config';
import type { Database } from '@devplat/db';
import { createLogger, listen } from '@devplat/http';
import {
  buildApiApp,
  createStatusSource,
  type Integrations,
  noIntegrations,
  type StatusSource,
  type TokenVerifier,
} from '../src/index.ts';

export interface RunningApi {
  /** {base_url} of the running service. */
  base: string;
  origin: string;
  config: Config;
  close(): Promise<void>;
}

export async function startApi(
  database: Pick<Database, 'prisma' | 'query'>,
  env: Record<string, string> = {},
  options: { statusSource?: StatusSource; integrations?: Integrations; tokens?: TokenVerifier } = {},
): Promise<RunningApi> {
  const config = loadConfig({ ...env });
  const app = buildApiApp({
    config,
    prisma: database.prisma,
    query: database.query,
    logger: createLogger('silent', 'api'),
    statusSource: options.statusSource ?? createStatusSource(config.statusUrl),
    integrations: options.integrations ?? noIntegrations,
    ...(options.tokens ? { tokens: options.tokens } : {}),
  });
  const server = await listen(app.callback(), '127.0.0.1', 0);
  return {
    base: `${server.origin}/developer/v1`,
    origin: server.origin,
    config,
    close: async () => void (await server.close()),
  };
}
