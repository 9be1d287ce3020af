export { type AuthDependencies, authPaths, buildAuthApp, rfc8414Path } from './app.ts';
export { authorizationServerMetadata } from './metadata.ts';
export { pairwiseSubject } from './pairwise.ts';
