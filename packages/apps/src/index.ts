export { hashSecret, matchSecret, newClientId, newClientSecret, newWebhookSigningSecret } from './credentials.ts';
export { type AppDirectory, appDirectory } from './directory.ts';
export { redirectUriProblem, redirectUrisProblem } from './redirect-uris.ts';
export * from './registry.ts';
