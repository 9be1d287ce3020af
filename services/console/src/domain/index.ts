// The console's domain, built once and shared by the JSON API and the web UI: both doors call these
// functions, resolve sessions through them, and turn their refusals (@devplat/domain/refusal) into
// answers through one table (doors.ts). No door reaches the database itself.
import { appDirectory } from '@devplat/app-directory';
import { type Config, cookieHosts } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';
import { signInThrottle } from '@devplat/throttle';
import { developerAccounts } from './accounts.ts';
import { developerApiKeys } from './api-keys.ts';
import { developerApps } from './apps.ts';
import { accountHistories, appHistories } from './history.ts';
import type { DomainParts } from './parts.ts';
import { sandboxPlayers } from './players.ts';
import { requestLogs } from './request-log.ts';
import { consoleSessions } from './sessions.ts';
import { consentTriggers } from './triggers.ts';
import { developerWebhooks } from './webhooks.ts';

export function consoleDomain(
  config: Config,
  prisma: PrismaClient,
  store: KeyValueStore,
  pairwiseSecret: string,
  metrics?: Metrics,
) {
  // Each door's locks are counted for the sign-in lock alert (devplat_sign_in_locks_total).
  const throttle = (door: string) => signInThrottle(store, door, config.signIn, metrics?.signInLocks(door));
  const apps = developerApps(prisma, appDirectory(prisma, store), {
    webhooks: config.webhooks,
    reservedHosts: cookieHosts(config),
    pairwiseSecret,
  });
  const webhooks = developerWebhooks(prisma, store, apps);
  const parts: DomainParts = { config, prisma, store, pairwiseSecret, apps, webhooks, metrics };
  return {
    sessions: consoleSessions(store),
    accounts: developerAccounts(prisma, throttle('console-sign-in')),
    apiKeys: developerApiKeys(prisma),
    accountHistory: accountHistories(prisma),
    apps,
    webhooks,
    history: appHistories(prisma, apps),
    players: sandboxPlayers(prisma, throttle('player-create')),
    requestLog: requestLogs(parts),
    triggers: consentTriggers(parts),
  };
}
export type ConsoleDomain = ReturnType<typeof consoleDomain>;
