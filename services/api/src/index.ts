export { type ApiDependencies, buildApiApp } from './app.ts';
export {
  type AccessToken,
  type RemoteKeys,
  remoteKeys,
  signingKeysCheck,
  type TokenVerifier,
  tokenVerifier,
} from './bearer.ts';
export { capabilities, type Integrations, noIntegrations, splitIntegrations } from './capabilities.ts';
export { createStatusSource, type PlatformStatus, parseSummary, type StatusSource } from './status-source.ts';
