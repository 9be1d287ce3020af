// The only module that writes revoked_tokens: the ids (jti) of app access tokens revoked before
// they expire. The api's liveness statement reads them on every call (services/api/src/liveness.ts,
// a hot-path read); a row is useless once its token has expired, and the janitor deletes it.
import type { PrismaClient } from '@devplat/db';

/** Revokes the access token `jti` until `expiresAt`; revoking it again changes nothing. */
export async function recordRevokedToken(prisma: PrismaClient, jti: string, expiresAt: Date): Promise<void> {
  await prisma.revokedToken.upsert({ where: { jti }, create: { jti, expiresAt }, update: {} });
}

export const countExpiredRevocations = async (prisma: PrismaClient): Promise<number> =>
  Number(
    (await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM revoked_tokens WHERE expires_at < now()`)[0]
      ?.n ?? 0,
  );

/** One statement; rows another transaction holds are skipped. */
export const deleteExpiredRevocations = (prisma: PrismaClient, limit: number): Promise<number> =>
  prisma.$executeRaw`
    DELETE FROM revoked_tokens WHERE jti IN (
      SELECT jti FROM revoked_tokens WHERE expires_at < now()
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
