// The admin API's own description, packages/1-foundation/contract/openapi/admin-api-1.0.0.yaml, served as it is
// on the admin listener (never on the console's public /docs), to anyone who reaches the listener:
// it holds no data, and tools fetch it without a token.
import { readFileSync } from 'node:fs';
import { sendReady } from '@devplat/http';
import type { AdminRoutes } from './routes.ts';

export const documentFile = new URL('../openapi/admin-api-1.0.0.yaml', import.meta.resolve('@devplat/contract'));

export function documentRoutes({ open }: AdminRoutes): void {
  const body = readFileSync(documentFile);
  open('/openapi.yaml', {
    GET: (ctx) => sendReady(ctx, { status: 200, contentType: 'application/yaml; charset=utf-8', body }),
  });
}
