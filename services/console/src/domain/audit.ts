// Who did what, when: every change a developer makes through the console leaves a record.
import type { Prisma, PrismaClient } from '@devplat/db';

export interface Actor {
  accountId: string;
  requestId?: string;
}

export async function audit(
  prisma: PrismaClient,
  actor: Actor,
  action: string,
  target: { type: string; id: string },
  details: Prisma.InputJsonObject = {},
): Promise<void> {
  await prisma.auditRecord.create({
    data: {
      actorType: 'account',
      actorId: actor.accountId,
      action,
      targetType: target.type,
      targetId: target.id,
      details,
      requestId: actor.requestId ?? null,
    },
  });
}
