// The only module that writes audit_records: who did what, when. An audit record is written in the
// transaction of the change it records (each room's operation calls recordAudit), so there is never
// a change without its record, nor a record of a change that did not happen.
import type { Prisma } from '@devplat/db';

/** Who acts: a developer account, and the request it acted through. */
export interface Actor {
  accountId: string;
  requestId?: string;
}

/** An operator acting through the admin command (services/admin), by the name they gave. */
export interface Operator {
  operator: string;
}

export async function recordAudit(
  tx: Prisma.TransactionClient,
  actor: Actor | Operator,
  action: string,
  target: { type: string; id: string },
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
      details,
      requestId: byOperator ? null : (actor.requestId ?? null),
    },
  });
}
