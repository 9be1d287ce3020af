// What the console's two doors answer with: the contract's views of the rooms' rows (the console
// API's JSON; the web UI's pages show the same members).
import type { ApiKeyView, AppView, CreatedApiKeyView, PlayerView } from '@devplat/contract';
import type { Account, SandboxPlayer } from '@devplat/db';
import { type ApiKeyRow, apiKeyStatus, type NewApiKey } from '@devplat/domain/api-keys';
import type { AppWithSecrets } from '@devplat/domain/apps';

export interface AccountView {
  id: string;
  email: string;
  kind: Account['kind'];
  display_name: string;
}

export const accountView = (account: Account): AccountView => ({
  id: account.id,
  email: account.email,
  kind: account.kind,
  display_name: account.displayName,
});

export const apiKeyView = (row: ApiKeyRow, now = Date.now()): ApiKeyView => ({
  id: row.id,
  name: row.name,
  scope: row.scope,
  hint: row.hint,
  status: apiKeyStatus(row, now),
  created_at: row.createdAt.toISOString(),
  expires_at: row.expiresAt.toISOString(),
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
  revoked_at: row.revokedAt?.toISOString() ?? null,
});

export const createdApiKeyView = ({ key, apiKey }: NewApiKey): CreatedApiKeyView => ({
  api_key: apiKeyView(apiKey),
  key,
});

export const appView = (app: AppWithSecrets): AppView => ({
  client_id: app.clientId,
  name: app.name,
  environment: app.environment,
  status: app.status,
  scopes: app.scopes,
  redirect_uris: app.redirectUris,
  webhook_url: app.webhookUrl,
  webhook_signing_secret: app.webhookSigningSecret,
  secrets: app.secrets
    .toSorted((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map((secret) => ({
      secret_id: secret.id,
      created_at: secret.createdAt.toISOString(),
      status: secret.status,
      revoked_at: secret.revokedAt?.toISOString() ?? null,
    })),
  created_at: app.createdAt.toISOString(),
});

export const playerView = (player: SandboxPlayer): PlayerView => ({
  id: player.id,
  username: player.username,
  display_name: player.displayName,
  status: player.status,
  created_at: player.createdAt.toISOString(),
});
