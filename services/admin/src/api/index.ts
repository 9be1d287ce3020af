// The admin API, for the processes that serve it: services/admin/src/serve.ts and the one-process
// platform (services/platform).
export { type AdminApiDependencies, adminApiPath, buildAdminApi } from './app.ts';
export { type FailedAttempts, failedAttempts } from './failures.ts';
export { type AdminListener, type AdminListenerOptions, openAdminListener } from './listener.ts';
export { withOperatorSlot } from './operator-log.ts';
