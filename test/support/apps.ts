// Developers and apps made straight in the registry (the console arrives with a later issue).
import { randomUUID } from 'node:crypto';
import type { AccountKind, PrismaClient } from '@devplat/db';
import { createApp } from '@devplat/domain/apps';

export async function createDeveloper(prisma: PrismaClient, kind: AccountKind = 'full') {
  return prisma.account.create({
    data: { email: `${randomUUID()}@developer.test`, passwordHash: 'unused', displayName: 'Test Developer', kind },
  });
}

export async function createTestApp(
  prisma: PrismaClient,
  options: { scopes?: string[]; redirectUris?: string[]; kind?: AccountKind } = {},
) {
  const developer = await createDeveloper(prisma, options.kind);
  const { app, clientSecret } = await createApp(
    prisma,
    { accountId: developer.id },
    {
      accountId: developer.id,
      name: 'Test App',
      redirectUris: options.redirectUris ?? ['http://127.0.0.1:9/callback'],
      scopes: options.scopes ?? ['city.public.read'],
    },
  );
  return { developer, app, clientId: app.clientId, clientSecret };
}
