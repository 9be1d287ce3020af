// What every route of the player client shares: its dependencies, the player sessions, the
// signed-in player's lookup and the paths the routes send each other to.
import type { AppDirectory } from '@devplat/app-directory';
import type { Config } from '@devplat/config';
import { groupCommit, type PrismaClient, type Query, statementRoundTrips } from '@devplat/db';
import { type ActivePlayer, activePlayers } from '@devplat/domain/players';
import type { CurrentSession, Logger } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import { type Metrics, observedBatch } from '@devplat/metrics';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { type PlayerSessions, playerSessions } from './session.ts';

export interface PlayerClientDependencies {
  config: Config;
  pairwiseSecret: string;
  cookieKeys: string[];
  prisma: PrismaClient;
  /** Plain SQL for the signed-in player's status, read on every page. */
  query: Query;
  store: KeyValueStore;
  provider: Provider;
  /** The directory the token endpoint reads apps from, shared with the consent screen. */
  apps: AppDirectory;
  logger: Logger;
  metrics?: Metrics;
}

/** A current session whose player is still active. */
export type SignedInPlayer = CurrentSession<{ playerId: string }> & { player: ActivePlayer };

export interface PlayerClient extends PlayerClientDependencies {
  /** Served over https: Secure cookies with the __Host- prefix. */
  secure: boolean;
  sessions: PlayerSessions;
  /** The signed-in player, if their session is current and they are still active. */
  signedInPlayer(ctx: Context): Promise<SignedInPlayer | null>;
}

export const connectedAppsPath = '/account/connected-apps';
export const signInFor = (path: string) => `/signin?return_to=${encodeURIComponent(path)}`;

/** Only paths on this site: never an absolute URL or a scheme-relative one. */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')
    ? value
    : connectedAppsPath;
}

export function playerClient(deps: PlayerClientDependencies): PlayerClient {
  const secure = deps.config.playerClientUrl.protocol === 'https:';
  const sessions = playerSessions(deps.store, secure);
  // Concurrent pages share one statement (groupCommit); each still waits for one that starts after
  // it arrived, so a player disabled before the page is seen by it.
  const activePlayer = groupCommit(
    observedBatch(deps.metrics, 'active_player', (ids: string[]) => activePlayers(deps.query, ids)),
    statementRoundTrips(deps.query),
  );
  return {
    ...deps,
    secure,
    sessions,
    // The status is read from PostgreSQL, never cached (admin disable-player relies on it): a
    // player disabled since signing in is signed out here.
    async signedInPlayer(ctx) {
      const current = await sessions.current(ctx);
      if (!current) return null;
      const player = await activePlayer(current.session.playerId);
      if (!player) {
        await sessions.end(ctx);
        return null;
      }
      return { ...current, player };
    },
  };
}
