// The console's domain, built once and shared by the JSON API and the web UI.
import { appDirectory } from '@devplat/apps';
import type { Config } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import type { KeyValueStore } from '@devplat/kv';
import { developerApps } from './apps.ts';
import { sandboxPlayers } from './players.ts';
import { consoleSessions } from './sessions.ts';

export function consoleDomain(config: Config, prisma: PrismaClient, store: KeyValueStore) {
  return {
    prisma,
    sessions: consoleSessions(store),
    apps: developerApps(prisma, appDirectory(prisma, store), config.webhooks),
    players: sandboxPlayers(prisma),
  };
}
export type ConsoleDomain = ReturnType<typeof consoleDomain>;
