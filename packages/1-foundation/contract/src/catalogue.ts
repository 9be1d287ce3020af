// Facts the contract fixes, in one place for every service and test.

export const apiVersion = '1.0';

/** Scope catalogue (contract, Authentication rule 4). No other scope exists or is grantable. */
export const scopes = {
  'city.public.read': { audience: 'app or user', grants: 'GET /cities' },
  'profile.basic.read': { audience: 'user only', grants: 'GET /me: the pairwise sub and the chosen display name' },
} as const;
export type Scope = keyof typeof scopes;
/** The scope names in catalogue order. */
export const scopeNames = Object.keys(scopes) as readonly Scope[];
export function isScope(name: string): name is Scope {
  return Object.hasOwn(scopes, name);
}
/** Plain words for the consent screen. */
export const scopeDescriptions: Record<Scope, string> = {
  'city.public.read': 'See the public list of cities and where the game is available',
  'profile.basic.read': 'See the display name you chose',
};

/** The version of the consent text a receipt records; change it whenever the screen's words change. */
export const consentTextVersion = '2026-11-22';

export const appScopes: readonly Scope[] = ['city.public.read'];
export const userScopes: readonly Scope[] = ['city.public.read', 'profile.basic.read'];

export const limits = {
  accessTokenSeconds: 300,
  authorizationCodeSeconds: 120,
  refreshTokenSeconds: 30 * 24 * 60 * 60,
  citiesLimit: { min: 1, max: 100, default: 25 },
  maxDataItems: 100,
  /** Also a CHECK constraint on apps.redirect_uris in the migrations. */
  maxRedirectUris: 5,
} as const;

export const idFormats = {
  clientId: /^svc_[a-z2-7]{26}$/,
  pairwiseSubject: /^ps_[A-Za-z0-9_-]{32}$/,
  authorizationCodePrefix: 'sva_',
} as const;

export type PlatformStatusValue =
  | 'OPERATIONAL'
  | 'DEGRADED'
  | 'PARTIAL_OUTAGE'
  | 'MAJOR_OUTAGE'
  | 'MAINTENANCE'
  | 'UNKNOWN';

/**
 * Keys of the Capabilities map. The contract leaves them to us; docs/public-api.md documents each.
 * `always false` keys name what the contract says does not exist or is closed.
 */
export const capabilityKeys = [
  'oauth_client_credentials',
  'oauth_authorization_code',
  'oauth_refresh_token_rotation',
  'oauth_token_revocation',
  'city_registry',
  'player_profile',
  'consent_webhooks',
  'developer_console',
  'platform_status',
  'production_credentials',
  'commerce',
  'regulated_assets',
  'entitlements',
  'game_sessions',
  'leaderboards',
  'webhook_management',
  'rate_limiting',
  'signed_pagination',
  'sdks',
] as const;
export type CapabilityKey = (typeof capabilityKeys)[number];

/**
 * Problem codes with their HTTP status and title. The contract names FEATURE_DISABLED,
 * USER_TOKEN_REQUIRED, CONSENT_REVOKED, ACCESS_DENIED and INSUFFICIENT_SCOPE; the rest are ours.
 */
export const problemCodes = {
  INVALID_QUERY: { status: 400, title: 'Invalid query' },
  INVALID_TOKEN: { status: 401, title: 'Invalid or missing access token' },
  ACCESS_DENIED: { status: 403, title: 'Access denied' },
  USER_TOKEN_REQUIRED: { status: 403, title: 'User token required' },
  CONSENT_REVOKED: { status: 403, title: 'Consent revoked' },
  INSUFFICIENT_SCOPE: { status: 403, title: 'Insufficient scope' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large' },
  MALFORMED_REQUEST: { status: 400, title: 'Malformed request' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  // The developer console's own refusals (the console is not part of the public contract).
  INVALID_REQUEST: { status: 400, title: 'Invalid request' },
  NOT_SIGNED_IN: { status: 401, title: 'Not signed in' },
  INVALID_CREDENTIALS: { status: 401, title: 'Wrong e-mail or password' },
  TOO_MANY_ATTEMPTS: { status: 429, title: 'Too many sign-in attempts' },
  /** A console rate (triggers): so many a minute per account. */
  TOO_MANY_REQUESTS: { status: 429, title: 'Too many requests' },
  GUEST_ACCOUNT: { status: 403, title: 'Full account required' },
  ACCOUNT_SUSPENDED: { status: 403, title: 'Account suspended' },
  /** An API key at a route that needs a signed-in session: managing keys, changing the account. */
  SESSION_REQUIRED: { status: 403, title: 'Signed-in session required' },
  CSRF_FAILED: { status: 403, title: 'Form expired' },
  EMAIL_TAKEN: { status: 409, title: 'E-mail already registered' },
  USERNAME_TAKEN: { status: 409, title: 'Username taken' },
  SECRET_LIMIT: { status: 409, title: 'Too many active secrets' },
  API_KEY_LIMIT: { status: 409, title: 'Too many API keys' },
  APP_DISABLED: { status: 409, title: 'App disabled' },
  NO_WEBHOOK_URL: { status: 409, title: 'No webhook URL' },
  DELIVERY_NOT_FAILED: { status: 409, title: 'Delivery not failed' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  FEATURE_DISABLED: { status: 503, title: 'Feature disabled' },
  RESULT_TOO_LARGE: { status: 503, title: 'Result larger than limit' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;
export type ProblemCode = keyof typeof problemCodes;

/** The URI in a Problem's `type` member for a code, e.g. urn:developer-platform:problem:not-found. */
export function problemType(code: ProblemCode): string {
  return `urn:developer-platform:problem:${code.toLowerCase().replaceAll('_', '-')}`;
}

/**
 * Areas outside the contract (rule 1). Every method on these paths, and below them, answers
 * 503 Problem FEATURE_DISABLED.
 */
export const disabledAreas = ['/commerce', '/entitlements', '/game-sessions', '/webhooks', '/production-credentials'];
