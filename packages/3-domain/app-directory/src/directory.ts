// The token endpoint and the consent screen ask for an app on every request. Asking PostgreSQL
// each time costs more than issuing the token (measured: docs/benchmarks.md), so lookups are kept
// in this process, tagged with the app's version counter in the shared store. Every change to an
// app, its secrets or its account bumps the counter after it commits; every lookup reads the
// counter first and reloads on any difference. A revocation therefore takes effect on the next
// request in every process, and when the store is unreachable the lookup fails (503) rather than
// trusting the cache.
// Concurrent lookups share their counter reads (groupCommit): one MGET per event-loop turn.
import { groupCommit, type PrismaClient } from '@devplat/db';
import type { KeyValueStore } from '@devplat/kv';
import { type Metrics, observedBatch } from '@devplat/metrics';
import { findUsableApp, type UsableApp } from './usable-app.ts';

const versionKey = (clientId: string) => `app-version:${clientId}`;
const maxEntries = 10_000;
const maxAgeMs = 60_000;

export interface AppDirectory {
  /** The usable app (active sandbox app of an active full account) with its active secret hashes. */
  find(clientId: string): Promise<UsableApp | null>;
  /** Call after any committed change to the app, its secrets or its account. */
  changed(clientId: string): Promise<void>;
}

export function appDirectory(prisma: PrismaClient, store: KeyValueStore, metrics?: Metrics): AppDirectory {
  const cache = new Map<string, { version: string | null; app: UsableApp; until: number }>();
  const readVersion = groupCommit(observedBatch(metrics, 'app_directory', (keys: string[]) => store.getMany(keys)));
  return {
    async find(clientId) {
      const version = (await readVersion(versionKey(clientId))) ?? null;
      const hit = cache.get(clientId);
      if (hit && hit.version === version && hit.until > Date.now()) return hit.app;
      // The version was read before the query: a change committed meanwhile bumps it past this entry.
      const app = await findUsableApp(prisma, clientId);
      cache.delete(clientId);
      if (app) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
        cache.set(clientId, { version, app, until: Date.now() + maxAgeMs });
      }
      return app;
    },
    async changed(clientId) {
      // Durable: a failover that lost the bump could let a later bump reach the number a cache
      // holds for the app as it was before this change.
      await store.increment(versionKey(clientId), { durable: true });
    },
  };
}
