// The rooms' console operations, bound once to this process's stores and settings and shared by
// the JSON API and the web UI: both doors call these, resolve sessions through them, and turn their
// refusals (@devplat/domain/refusal) into answers through one table (doors.ts). The rules are the
// rooms' (@devplat/domain/…, each room's developers.ts); no door reaches the database itself.
import { appDirectory } from '@devplat/app-directory';
import { type Config, cookieHosts } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import { developerAccounts } from '@devplat/domain/accounts';
import { developerApiKeys } from '@devplat/domain/api-keys';
import { developerApps } from '@devplat/domain/apps';
import { sandboxPlayers } from '@devplat/domain/players';
import { consentTriggers, developerHistories, developerWebhooks, triggerRate } from '@devplat/domain/workflows';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';
import { requestLogs } from '@devplat/request-log';
import { rateLimit, signInThrottle } from '@devplat/throttle';
import { consoleSessions } from './sessions.ts';

export function consoleDomain(
  config: Config,
  prisma: PrismaClient,
  store: KeyValueStore,
  pairwiseSecret: string,
  metrics?: Metrics,
) {
  // Each door's locks are counted for the sign-in lock alert (devplat_sign_in_locks_total).
  const throttle = (door: string) => signInThrottle(store, door, config.signIn, metrics?.signInLocks(door));
  const accounts = developerAccounts(prisma, throttle('console-sign-in'));
  return {
    sessions: consoleSessions(store, accounts),
    accounts,
    apiKeys: developerApiKeys(prisma),
    apps: developerApps(prisma, appDirectory(prisma, store), {
      webhooks: config.webhooks,
      reservedHosts: cookieHosts(config),
      pairwiseSecret,
    }),
    webhooks: developerWebhooks(prisma, store),
    history: developerHistories(prisma),
    players: sandboxPlayers(prisma, throttle('player-create')),
    requestLog: requestLogs(prisma, store, config.requestLog),
    triggers: consentTriggers(prisma, pairwiseSecret, rateLimit(store, triggerRate)),
  };
}
export type ConsoleDomain = ReturnType<typeof consoleDomain>;
