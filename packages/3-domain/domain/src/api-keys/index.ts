// The API keys room: developers' keys for the console API (scripts, CI, the devplat CLI), made
// under the key's rules (rules.ts), listed and revoked from a signed-in session, and checked on
// every call. Only store.ts touches the api_keys table.
export { developerApiKeys } from './developers.ts';
export {
  type ApiKeyInUse,
  apiKeyStatus,
  apiKeysOfAccount,
  apiKeyUse,
  authenticateApiKey,
  createApiKey,
  type KeyRefused,
  lastUsedIntervalMs,
  type NewApiKey,
  revokeApiKey,
} from './operations.ts';
export { type ApiKeyRequest, type CheckedApiKey, checkedApiKey } from './rules.ts';
export type { ApiKeyRow } from './store.ts';
