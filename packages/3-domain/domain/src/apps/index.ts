// The apps room: what can be done with developer apps and their client secrets (create, edit,
// rotate, revoke, disable, enable, delete; the platform's suspension), their rules (redirect URIs, scopes, credentials) and
// what may be read of them. Only store.ts touches the apps and client_secrets tables.

export {
  type AppActivity,
  activeAppOfDeveloper,
  appOfDeveloper,
  developerApps,
  secretOfApp,
} from './developers.ts';
export {
  type AppChangeNotice,
  type AppChanges,
  type AppEdit,
  addSecret,
  type By,
  createApp,
  deleteApp,
  disableApp,
  editApp,
  enableApp,
  type NewApp,
  refuseSuspended,
  revokeSecret,
  suspendApp,
  unsuspendApp,
} from './operations.ts';
export { appWithClientId } from './operators.ts';
export { onReservedHost } from './redirect-uris.ts';
export { type AppDetails, type AppSearch, appDetails, searchApps } from './search.ts';
export {
  type AppWithSecrets,
  appCountOfAccount,
  appCountsOfAccount,
  appsOfAccount,
  findApp,
  findAppByClientId,
  findAppWithSecrets,
  recordSecretsLastUsed,
  type SecretUse,
} from './store.ts';
