// The apps and client_secrets tables: every statement on apps and their secrets is here, and only
// these write them. Two reads stay outside, on purpose, each one statement across areas: the app
// directory's per-request read (packages/3-domain/app-directory/src/usable-app.ts) and the api's per-call liveness
// statement (services/api/src/liveness.ts); the worker joins an app's webhook settings onto its
// outbox events and deliveries (the events room's store, packages/3-domain/domain/src/events/store.ts).
import { type App, type AppStatus, type ClientSecret, type Prisma, storableText } from '@devplat/db';
import type { Db } from '../db.ts';
import { beyond, orderOf, type Position } from '../paging.ts';

export type AppWithSecrets = App & { secrets: ClientSecret[] };

export type NewAppRow = Pick<
  App,
  'clientId' | 'accountId' | 'name' | 'redirectUris' | 'scopes' | 'webhookUrl' | 'webhookSigningSecret'
> & {
  /** The hash of the app's first secret, created with it. */
  secretHash: string;
};

export const insertApp = (tx: Prisma.TransactionClient, { secretHash, ...app }: NewAppRow): Promise<AppWithSecrets> =>
  tx.app.create({ data: { ...app, secrets: { create: { hash: secretHash } } }, include: { secrets: true } });

export type LockedApp = Pick<App, 'clientId' | 'status' | 'disabledAt'>;

/** Locks the app row for the rest of the transaction; null when there is no such app. */
export async function lockApp(tx: Prisma.TransactionClient, appId: string): Promise<LockedApp | null> {
  const [app] = await tx.$queryRaw<{ client_id: string; status: AppStatus; disabled_at: Date | null }[]>`
    SELECT client_id, status::text AS status, disabled_at FROM apps WHERE id = ${appId}::uuid FOR UPDATE`;
  return app ? { clientId: app.client_id, status: app.status, disabledAt: app.disabled_at } : null;
}

export const appById = (db: Db, appId: string): Promise<App | null> => db.app.findUnique({ where: { id: appId } });

export const updateApp = (
  tx: Prisma.TransactionClient,
  appId: string,
  data: Pick<Prisma.AppUpdateInput, 'name' | 'redirectUris' | 'scopes' | 'webhookUrl'>,
): Promise<AppWithSecrets> => tx.app.update({ where: { id: appId }, data, include: { secrets: true } });

/** Moves the app from one of `from` to what `data` sets; count 0 when it was in none of them. */
export const changeAppStatus = (
  tx: Prisma.TransactionClient,
  appId: string,
  from: AppStatus[],
  data: Prisma.AppUpdateManyMutationInput,
): Promise<{ count: number }> => tx.app.updateMany({ where: { id: appId, status: { in: from } }, data });

export const activeSecretCount = (tx: Prisma.TransactionClient, appId: string): Promise<number> =>
  tx.clientSecret.count({ where: { appId, status: 'active' } });

export const insertSecret = (tx: Prisma.TransactionClient, appId: string, hash: string): Promise<ClientSecret> =>
  tx.clientSecret.create({ data: { appId, hash } });

/** Count 0 when the secret is not the app's or was revoked already. */
export const revokeActiveSecret = (
  tx: Prisma.TransactionClient,
  appId: string,
  secretId: string,
): Promise<{ count: number }> =>
  tx.clientSecret.updateMany({
    where: { id: secretId, appId, status: 'active' },
    data: { status: 'revoked', revokedAt: new Date() },
  });

/** When a secret authenticated a call: its id and the time (auth's usage bookkeeping). */
export interface SecretUse {
  secretId: string;
  at: Date;
}

/**
 * Bookkeeping, not a change the developer made: no event and no audit record. Each secret's
 * last_used_at moves only forward (a flush that arrives late never moves it back), and a row
 * already as recent is left unwritten. The rows are locked in id order first, so two auth
 * processes writing overlapping secrets wait for each other instead of deadlocking. Returns how
 * many rows moved.
 */
export function recordSecretsLastUsed(db: Db, uses: readonly SecretUse[]): Promise<number> {
  if (uses.length === 0) return Promise.resolve(0);
  const ids = uses.map((use) => use.secretId);
  const times = uses.map((use) => use.at.toISOString());
  return db.$executeRaw`
    WITH used AS (SELECT * FROM unnest(${ids}::uuid[], ${times}::timestamptz[]) AS u(id, at)),
         locked AS (SELECT s.id, used.at FROM client_secrets s JOIN used ON used.id = s.id
                     WHERE s.last_used_at IS NULL OR s.last_used_at < used.at
                     ORDER BY s.id FOR UPDATE OF s)
    UPDATE client_secrets s SET last_used_at = GREATEST(s.last_used_at, locked.at)
      FROM locked WHERE s.id = locked.id`;
}

/** The client ids of one app, or of an account's apps (whatever their status). */
export const clientIdsOf = async (db: Db, where: { id: string } | { accountId: string }): Promise<string[]> =>
  (await db.app.findMany({ where, select: { clientId: true } })).map((app) => app.clientId);

/** An app by its id, in any status. */
export const findApp = (db: Db, appId: string): Promise<App | null> => appById(db, appId);

/** An app by its id, in any status, with all its secrets; throws when there is none. */
export const findAppWithSecrets = (db: Db, appId: string): Promise<AppWithSecrets> =>
  db.app.findUniqueOrThrow({ where: { id: appId }, include: { secrets: true } });

/**
 * An app by its client id, in any status (deleted too), with all its secrets; none for text no row
 * can hold (@devplat/db's storableText), which never reaches the query.
 */
export const findAppByClientId = async (db: Db, clientId: string): Promise<AppWithSecrets | null> =>
  storableText(clientId) ? db.app.findUnique({ where: { clientId }, include: { secrets: true } }) : null;

/** The account's apps not deleted, oldest first, with their secrets. */
export const appsOfAccount = (db: Db, accountId: string): Promise<AppWithSecrets[]> =>
  db.app.findMany({
    where: { accountId, status: { not: 'deleted' } },
    include: { secrets: true },
    orderBy: { createdAt: 'asc' },
  });

/** How many apps the account has in each status but deleted; a status it has none in is absent. */
export async function appCountsOfAccount(db: Db, accountId: string): Promise<Partial<Record<AppStatus, number>>> {
  const groups = await db.app.groupBy({
    by: ['status'],
    where: { accountId, status: { not: 'deleted' } },
    _count: { _all: true },
  });
  const counts: Partial<Record<AppStatus, number>> = {};
  for (const status of ['active', 'disabled', 'suspended'] as const) {
    const n = groups.find((group) => group.status === status)?._count._all;
    if (n) counts[status] = n;
  }
  return counts;
}

/** How many apps the account has, in any status. */
export const appCountOfAccount = (db: Db, accountId: string): Promise<number> => db.app.count({ where: { accountId } });

/** What an operator's search of apps narrows by; each member absent is no condition. */
export interface AppSelection {
  accountId?: string;
  clientId?: string;
  /** The start of the name, in any case (LIKE-escaped by the caller). */
  namePrefix?: string;
  status?: AppStatus;
  createdAt?: { gte?: Date; lt?: Date };
}

/**
 * Apps newest first by (created_at, id), after a position: walked on the (created_at, id) or
 * (status, created_at, id) index; a name prefix is checked on the rows that walk meets.
 */
export const appsNewestFirst = (
  db: Db,
  { accountId, clientId, namePrefix, status, createdAt }: AppSelection,
  after: Position | null,
  take: number,
): Promise<App[]> =>
  db.app.findMany({
    where: {
      AND: [
        {
          ...(accountId && { accountId }),
          ...(clientId && { clientId }),
          ...(namePrefix && { name: { startsWith: namePrefix, mode: 'insensitive' as const } }),
          ...(status && { status }),
          ...(createdAt && { createdAt }),
        },
        ...(after ? [beyond(after, 'newest')] : []),
      ],
    },
    orderBy: orderOf('newest'),
    take,
  });
