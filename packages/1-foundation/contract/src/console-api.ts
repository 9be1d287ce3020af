// Shapes of the developer console's JSON API that more than one package reads: the console writes
// them, the devplat CLI reads them.

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** The console's JSON view of a delivery. */
export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  event_type: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  /** null once final (succeeded or failed). */
  next_attempt_at: string | null;
  delivered_at: string | null;
  replay_of: string | null;
  test: boolean;
}

/** The console's JSON view of an app; the client secrets appear only as ids, never as values. */
export interface AppView {
  client_id: string;
  name: string;
  environment: 'sandbox' | 'staging' | 'production';
  /**
   * `suspended`: stopped by the platform, which alone lifts it. `deleted` only in the answer to
   * DELETE: a deleted app is gone from the console.
   */
  status: 'active' | 'disabled' | 'suspended' | 'deleted';
  scopes: string[];
  redirect_uris: string[];
  webhook_url: string | null;
  webhook_signing_secret: string | null;
  secrets: { secret_id: string; created_at: string; status: 'active' | 'revoked'; revoked_at: string | null }[];
  created_at: string;
}

/** The console's JSON view of a sandbox player (never its password). */
export interface PlayerView {
  id: string;
  username: string;
  display_name: string | null;
  status: 'active' | 'disabled';
  created_at: string;
}

/** A page of the developer's sandbox players, oldest first; next_cursor gives the newer ones (null: no more). */
export interface PlayerPageView {
  data: PlayerView[];
  next_cursor: string | null;
}

/**
 * Who made a change in an app's history: the developer (by the e-mail of their account), or the
 * platform (an operator, never named: who they are is the platform's own business).
 */
export type HistoryActorView = { type: 'developer'; email: string } | { type: 'platform' };

/** One entry of an app's history, or of the account's, in the console. */
export interface HistoryEntryView {
  /** When it happened. */
  at: string;
  /** What happened, by its audit name: app.edit, secret.revoke, app.suspend, api_key.create… */
  action: string;
  actor: HistoryActorView;
  /**
   * A short sentence: "Secret <secret_id> revoked", "Edited: scopes, redirect_uris", "Suspended by
   * the platform". It names only what the console shows anyway (secret and delivery ids).
   */
  summary: string;
  /** The X-Request-ID of the developer's request that made the change; null for the platform's. */
  request_id: string | null;
}

/** One call of an app's request log, as the console API and `devplat logs tail` give it. */
export interface RequestLogEntryView {
  /** Its place in the log: the cursor of the entries older than it, the Last-Event-ID of a tail. */
  id: string;
  at: string;
  operation: 'token' | 'revoke' | 'cities' | 'me';
  status: number;
  /** The OAuth error (token, revoke) or Problem code (cities, me) answered; null for a success. */
  error: string | null;
  request_id: string;
  latency_ms: number;
  /** A token request's grant type; null for the others, or one the provider did not know. */
  grant_type: string | null;
  /** A user token's pairwise subject (ps_...); null for app tokens and the token endpoint. */
  subject: string | null;
  /** False for a call whose client authentication failed, which only claimed this app's client id. */
  client_authenticated: boolean;
}

/** What a developer's API key starts with: a secret scanner's match, and what a person recognises. */
export const apiKeyPrefix = 'devplat_key_';

/** `read` calls GET (and HEAD) only; `write` may also change what a session may change. */
export const apiKeyScopes = ['read', 'write'] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

export const apiKeyLimits = {
  /** The lifetime a key gets when none is asked for. */
  defaultDays: 30,
  /** The longest lifetime a key may be given. */
  maxDays: 365,
  /** Keys an account may hold at once that are neither revoked nor expired. */
  maxActive: 20,
} as const;

/** The console's JSON view of an API key: never the key itself, only its last four characters. */
export interface ApiKeyView {
  id: string;
  name: string;
  scope: ApiKeyScope;
  /** The key's last four characters, to tell keys apart. */
  hint: string;
  /** `expired` and `revoked` keys answer 401 NOT_SIGNED_IN. */
  status: 'active' | 'expired' | 'revoked';
  created_at: string;
  expires_at: string;
  /** When it last opened a call (written at most about once a minute); null if never. */
  last_used_at: string | null;
  revoked_at: string | null;
}

/** The answer to creating a key: the key, shown this once, and its view. */
export interface CreatedApiKeyView {
  api_key: ApiKeyView;
  key: string;
}
