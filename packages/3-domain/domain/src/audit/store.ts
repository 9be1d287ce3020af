// The only module that writes audit_records: who did what, when. An audit record is written in the
// transaction of the change it records (each room's operation calls recordAudit), so there is never
// a change without its record, nor a record of a change that did not happen.
import type { AuditRecord, Prisma } from '@devplat/db';
import type { Db } from '../db.ts';
import { beyond, likeLiteral, type Order, orderOf, type Position } from '../paging.ts';

/** Who acts: a developer account, and the request it acted through. */
export interface Actor {
  accountId: string;
  requestId?: string;
}

/** An operator acting through the admin command (services/admin), by the name they gave. */
export interface Operator {
  operator: string;
}

/**
 * What a record is about: its target, and the app it concerns when it concerns one (the app's own
 * change, one of its secrets, its test webhook or a replay of its delivery, the platform ending
 * one of its consents or all of them), which puts it in that app's history (appHistory).
 */
export interface AuditTarget {
  type: string;
  id: string;
  appId?: string;
}

export async function recordAudit(
  tx: Prisma.TransactionClient,
  actor: Actor | Operator,
  action: string,
  target: AuditTarget,
  details: Prisma.InputJsonObject = {},
): Promise<void> {
  const byOperator = 'operator' in actor;
  await tx.auditRecord.create({
    data: {
      actorType: byOperator ? 'operator' : 'account',
      actorId: byOperator ? actor.operator : actor.accountId,
      action,
      targetType: target.type,
      targetId: target.id,
      appId: target.appId ?? null,
      details,
      requestId: byOperator ? null : (actor.requestId ?? null),
    },
  });
}

/** Which audit records a listing or an export reads; every member given must hold. */
export interface AuditSelection {
  /** Records by any of these actors (an empty list: none). */
  actors?: readonly { type: 'account' | 'operator'; id: string }[];
  action?: { is: string } | { startsWith: string };
  target?: { type: string; id?: string };
  createdAt?: { gte?: Date; lt?: Date };
  /** Records concerning this app (its history). */
  appId?: string;
}

function whereOf({ actors, action, target, createdAt, appId }: AuditSelection): Prisma.AuditRecordWhereInput {
  return {
    ...(appId !== undefined && { appId }),
    ...(actors && { OR: actors.map(({ type, id }) => ({ actorType: type, actorId: id })) }),
    ...(action && { action: 'is' in action ? action.is : { startsWith: likeLiteral(action.startsWith) } }),
    ...(target && { targetType: target.type, ...(target.id !== undefined && { targetId: target.id }) }),
    ...(createdAt && { createdAt }),
  };
}

/** Up to `take` selected records after a position (null: from the first), in the order asked. */
export async function auditRecords(
  db: Db,
  selection: AuditSelection,
  after: Position | null,
  order: Order,
  take: number,
): Promise<AuditRecord[]> {
  const read = (chosen: AuditSelection) =>
    db.auditRecord.findMany({
      where: { AND: [whereOf(chosen), ...(after ? [beyond(after, order)] : [])] },
      orderBy: orderOf(order),
      take,
    });
  const actors = distinctActors(selection.actors);
  if (!actors || actors.length < 2) return read(actors ? { ...selection, actors } : selection);
  // Records of several actors: an OR of them has no index range, so the planner walks the whole
  // log newest first, filtering. Each actor's own page is a range of (actor_type, actor_id,
  // created_at); their rows are disjoint, and the first `take` of the merged pages are the page.
  const pages = await Promise.all(actors.map((actor) => read({ ...selection, actors: [actor] })));
  const direction = order === 'newest' ? -1 : 1;
  return pages
    .flat()
    .sort((a, b) => direction * comparePositions(a, b))
    .slice(0, take);
}

/** The actors without repeats (the same actor twice is one actor's records once). */
function distinctActors(actors: AuditSelection['actors']): AuditSelection['actors'] {
  if (!actors) return actors;
  const seen = new Map(actors.map((actor) => [`${actor.type}\u0000${actor.id}`, actor]));
  return [...seen.values()];
}

/** (created_at, id) ascending, as PostgreSQL orders them: a uuid's lower-case text sorts as its bytes. */
function comparePositions(a: Position, b: Position): number {
  const time = a.createdAt.getTime() - b.createdAt.getTime();
  if (time !== 0) return time;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
