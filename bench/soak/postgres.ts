// The soak's PostgreSQL, always reached through one address (a fault proxy of the soak's own):
//   - single: the machine's server (DATABASE_URL), a database of the soak's own, created fresh and
//     dropped after; its faults are the proxy's (a stall, a restart);
//   - sync / async: a primary and a streaming standby of the soak's own (synchronous or asynchronous
//     replication), the address moving to the standby when it is promoted: the failover fault.
import { type FaultProxy, startFaultProxy } from '@devplat/test/fault-proxy';
import { startReplicatedPostgres } from '@devplat/test/postgres-replication';
import { dropDatabase, prepareDatabase } from '@devplat/topology';

export type PostgresMode = 'single' | 'sync' | 'async';

export interface SoakPostgres {
  mode: PostgresMode;
  describe: string;
  /** The one address the platform reaches PostgreSQL through. */
  proxy: FaultProxy;
  /** DATABASE_URL of the platform's (migrated) database, through the proxy. */
  databaseUrl: string;
  /** Kills the primary after holding the standby `lagMs` behind, promotes the standby, moves the address; says what it did. */
  failover?: (lagMs: number) => Promise<string>;
  stop(): Promise<void>;
}

export async function startSoakPostgres(mode: PostgresMode, database: string): Promise<SoakPostgres> {
  if (mode === 'single') {
    const serverUrl = process.env.DATABASE_URL?.trim() || 'postgresql://postgres@127.0.0.1:5432/postgres';
    const target = new URL(serverUrl);
    const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    try {
      await dropDatabase(serverUrl, database);
      const databaseUrl = proxy.proxied(await prepareDatabase(serverUrl, database));
      return {
        mode,
        describe: 'PostgreSQL (the machine’s, one server)',
        proxy,
        databaseUrl,
        async stop() {
          await proxy.close();
          await dropDatabase(serverUrl, database);
        },
      };
    } catch (error) {
      await proxy.close();
      throw error;
    }
  }
  const replicated = await startReplicatedPostgres({ replication: mode });
  try {
    const databaseUrl = await prepareDatabase(replicated.url(), database);
    return {
      mode,
      describe: replicated.describe,
      proxy: replicated.proxy,
      databaseUrl,
      failover: (lagMs) => replicated.failover({ lagMs }),
      stop: () => replicated.stop(),
    };
  } catch (error) {
    await replicated.stop();
    throw error;
  }
}
