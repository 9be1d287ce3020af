// The app directory: the per-request read of an app that may still get tokens (usable-app.ts) and
// its per-process cache (directory.ts). Changes to apps, their secrets and accounts are the apps and
// accounts rooms' (@devplat/domain/apps, @devplat/domain/accounts), which tell the directory.
export { type AppDirectory, appDirectory } from './directory.ts';
export { findUsableApp, grantedAppScopes, type UsableApp, usableAppCondition } from './usable-app.ts';
