// The API keys room: developers' keys for the console API (scripts, CI, the devplat CLI), made,
// listed and revoked from a signed-in session, and checked on every call. Only store.ts touches the
// api_keys table.
export { developerApiKeys } from './developers.ts';
export {
  type ApiKeyInUse,
  type ApiKeyRequest,
  apiKeyStatus,
  apiKeysOfAccount,
  apiKeyUse,
  authenticateApiKey,
  createApiKey,
  type KeyLimitReached,
  type KeyRefused,
  lastUsedIntervalMs,
  type NewApiKey,
  revokeApiKey,
} from './operations.ts';
export type { ApiKeyRow } from './store.ts';
