// The per-request read: the app a request names, if it may still get tokens. The token endpoint
// reads it through the directory's cache (directory.ts), the consent screen directly.
import { appScopes, type Scope } from '@devplat/contract';
import { type App, Prisma, type PrismaClient, storableText } from '@devplat/db';

/**
 * Whether an app may still get and use tokens, as SQL over the app (`a`) and its account (`acc`):
 * an active sandbox app of an active full account. The token endpoint's read (below) and the api's
 * liveness statement (services/api/src/liveness.ts) both say it with this.
 */
export const usableAppCondition =
  "a.status = 'active' AND a.environment = 'sandbox' AND acc.status = 'active' AND acc.kind = 'full'";

export type UsableApp = App & { secrets: { id: string; hash: string }[] };

interface UsableAppRow {
  id: string;
  client_id: string;
  account_id: string;
  name: string;
  environment: App['environment'];
  status: App['status'];
  scopes: string[];
  redirect_uris: string[];
  webhook_url: string | null;
  webhook_signing_secret: string | null;
  created_at: Date;
  disabled_at: Date | null;
  secrets: { id: string; hash: string }[];
}

/**
 * The app with its active secret hashes, if it is an active sandbox app of an active full
 * account. One indexed query: it runs on every token request. A client id no row can hold
 * (@devplat/db's storableText: a NUL, a lone surrogate) names no app and never reaches the query:
 * client authentication fails (401 invalid_client) and the consent screen refuses, as for any
 * unknown client.
 */
export async function findUsableApp(prisma: PrismaClient, clientId: string): Promise<UsableApp | null> {
  if (!storableText(clientId)) return null;
  const [row] = await prisma.$queryRaw<UsableAppRow[]>`
    SELECT a.id::text, a.client_id, a.account_id::text, a.name, a.environment::text, a.status::text,
           a.scopes, a.redirect_uris, a.webhook_url, a.webhook_signing_secret, a.created_at, a.disabled_at,
           coalesce((SELECT json_agg(json_build_object('id', s.id::text, 'hash', s.hash))
                       FROM client_secrets s WHERE s.app_id = a.id AND s.status = 'active'), '[]'::json) AS secrets
      FROM apps a JOIN accounts acc ON acc.id = a.account_id
     WHERE a.client_id = ${clientId} AND ${Prisma.raw(usableAppCondition)}`;
  if (!row) return null;
  return {
    id: row.id,
    clientId: row.client_id,
    accountId: row.account_id,
    name: row.name,
    environment: row.environment,
    status: row.status,
    scopes: row.scopes,
    redirectUris: row.redirect_uris,
    webhookUrl: row.webhook_url,
    webhookSigningSecret: row.webhook_signing_secret,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
    // Usable means active: neither suspended nor deleted.
    suspendedAt: null,
    deletedAt: null,
    secrets: row.secrets,
  };
}

/** The app scopes an app may put in an app token. */
export function grantedAppScopes(app: Pick<App, 'scopes'>): Scope[] {
  return appScopes.filter((scope) => app.scopes.includes(scope));
}
