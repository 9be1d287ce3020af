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
export const auditRecords = (
  db: Db,
  selection: AuditSelection,
  after: Position | null,
  order: Order,
  take: number,
): Promise<AuditRecord[]> =>
  db.auditRecord.findMany({
    where: { AND: [whereOf(selection), ...(after ? [beyond(after, order)] : [])] },
    orderBy: orderOf(order),
    take,
  });
