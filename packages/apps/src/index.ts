export { matchSecret } from './credentials.ts';
export { type AppDirectory, appDirectory } from './directory.ts';
export { onReservedHost } from './redirect-uris.ts';
export {
  type AppChanges,
  type AppEdit,
  addSecret,
  createApp,
  deleteApp,
  disableApp,
  editApp,
  enableApp,
  type NewApp,
  reactivateAccount,
  revokeSecret,
  suspendAccount,
} from './registry.ts';
export { findUsableApp, grantedAppScopes, type UsableApp } from './usable-app.ts';
