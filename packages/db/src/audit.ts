// Who did what, when. An audit record is written in the transaction of the change it records, so
// there is never a change without its record, nor a record of a change that did not happen.
import type { Prisma } from './generated/client.ts';

/** Who acts: a developer account, and the request it acted through. */
export interface Actor {
  accountId: string;
  requestId?: string;
}

/** An operator acting through the admin command (services/admin), by the name they gave. */
export interface Operator {
  operator: string;
}

/** Work to do inside a change's transaction, with what the change made: its audit record, say. */
export type InTransaction<Made = void> = (tx: Prisma.TransactionClient, made: Made) => Promise<unknown>;

export async function audit(
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
