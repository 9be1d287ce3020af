import type { Prisma, PrismaClient } from '@devplat/db';

/** Where a read runs: a connection, or the transaction of a change. */
export type Db = PrismaClient | Prisma.TransactionClient;
