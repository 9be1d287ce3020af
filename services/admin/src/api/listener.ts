// The admin API on its listener, as a process opens it (services/admin/src/serve.ts alone, or
// services/platform in npm start): the operator tokens file watched, the app directory on the
// process's store, the app behind tracing, on ADMIN_HOST:ADMIN_PORT.
import { appDirectory } from '@devplat/app-directory';
import type { Config } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import { type Closer, type Logger, listen, type NamedListener, routesOf, withTracing } from '@devplat/http';
import { watchTokensFile } from '@devplat/keys';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';
import { noopTracing, type Tracing } from '@devplat/tracing';
import { tokenUsage } from '@devplat/usage';
import { adminApiPath, buildAdminApi } from './app.ts';
import { withOperatorSlot } from './operator-log.ts';

export interface AdminListenerOptions {
  config: Config;
  /** Where the operator tokens are (config.admin.tokensFile, required to serve the admin API). */
  tokensFile: string;
  prisma: PrismaClient;
  /**
   * PAIRWISE_SECRET (or its _FILE), as the admin command reads it: the consent routes need it; null
   * when the process has none (they answer 503 then, the rest works).
   */
  pairwiseSecret: string | null;
  store: KeyValueStore;
  logger: Logger;
  metrics?: Metrics;
  tracing?: Tracing;
}

export interface AdminListener {
  listener: NamedListener;
  /** Stops watching the tokens file: the drain's, after the listener. */
  closer: Closer;
  /** {origin}/admin/v1 */
  url: string;
}

export async function openAdminListener({
  config,
  tokensFile,
  prisma,
  pairwiseSecret,
  store,
  logger,
  metrics,
  tracing = noopTracing,
}: AdminListenerOptions): Promise<AdminListener> {
  const tokens = watchTokensFile(tokensFile, logger);
  const directory = appDirectory(prisma, store, metrics);
  // Reads only: this process issues no tokens, so it never counts or flushes.
  const usage = tokenUsage(store);
  const app = withTracing(
    buildAdminApi({ prisma, directory, usage, pairwiseSecret, tokens, logger, metrics }),
    tracing,
  );
  try {
    const server = await listen(withOperatorSlot(app.callback()), config.admin.host, config.admin.port);
    return {
      listener: { name: 'admin', server, routes: routesOf(app) },
      closer: { name: 'operator tokens file', close: async () => tokens.close() },
      url: `${server.origin}${adminApiPath}`,
    };
  } catch (error) {
    tokens.close();
    throw error;
  }
}
