export { pairwiseSubject } from '@devplat/domain/consents';
export { type AuthDependencies, type AuthService, authPaths, buildAuthService, rfc8414Path } from './app.ts';
export { publicJwks, signingKeysLoaded } from './internal.ts';
export { authorizationServerMetadata } from './metadata.ts';
