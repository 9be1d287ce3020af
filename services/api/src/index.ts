export { type ApiDependencies, buildApiApp } from './app.ts';
export { type AccessToken, remoteKeys, type TokenVerifier, tokenVerifier } from './bearer.ts';
export { capabilities, type Integrations, noIntegrations } from './capabilities.ts';
export { createStatusSource, type PlatformStatus, parseSummary, type StatusSource } from './status-source.ts';
