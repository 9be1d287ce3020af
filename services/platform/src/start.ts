// The whole platform in one process on embedded defaults: the newcomer's `npm start`.
// It composes the services' own builders; production runs them split (see infra/).
import { buildApiApp, createStatusSource, noIntegrations } from '@devplat/api';
import type { Config } from '@devplat/config';
import { type Database, openDatabase, prepareEmbeddedDatabase } from '@devplat/db';
import { createLogger, listen, type RunningServer } from '@devplat/http';

export interface RunningPlatform {
  /** What a person opens, by name. */
  urls: Record<string, string>;
  database: Database;
  close(): Promise<void>;
}

function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

export async function startPlatform(config: Config, options: { ephemeral?: boolean } = {}): Promise<RunningPlatform> {
  const logger = createLogger(config.logLevel, 'platform');
  const database = config.databaseUrl
    ? await openDatabase({ databaseUrl: config.databaseUrl })
    : await prepareEmbeddedDatabase(options.ephemeral ? null : config.dataDir);
  const servers: RunningServer[] = [];
  try {
    const api = buildApiApp({
      config,
      prisma: database.prisma,
      logger: logger.child({ service: 'api' }),
      statusSource: createStatusSource(config.statusUrl),
      integrations: noIntegrations,
    });
    // The public gateway of {base_url}; the auth service joins it under /oauth and /.well-known.
    servers.push(await listen(api.callback(), config.host, config.port ?? portOf(config.baseUrl)));
  } catch (error) {
    await Promise.all(servers.map((server) => server.close()));
    await database.close();
    throw error;
  }
  const [gateway] = servers as [RunningServer];
  return {
    urls: { 'Public API': `${gateway.origin}${config.baseUrl.pathname}` },
    database,
    close: async () => {
      await Promise.all(servers.map((server) => server.close()));
      await database.close();
    },
  };
}
