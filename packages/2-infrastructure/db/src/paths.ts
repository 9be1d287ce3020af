import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const prismaDir = fileURLToPath(new URL('../../../../prisma/', import.meta.url));
