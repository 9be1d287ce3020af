// The app directory: the per-request read of an app that may still get tokens (usable-app.ts) and
// its per-process cache (directory.ts). Changes to apps, their secrets and accounts are the apps and
// accounts rooms' (@devplat/domain/apps, @devplat/domain/accounts), which tell the directory.
// What operators see of an app's use, kept off the token path: usage.ts. Each app's request log, for
// its developer, kept off the token and API paths the same way: request-log.ts.
export { type AppDirectory, appDirectory } from './directory.ts';
export {
  flushRequestLogEvery,
  maxPendingRecords,
  type Position,
  parsePosition,
  positionText,
  type RequestFilter,
  type RequestLog,
  type RequestLogBounds,
  type RequestLogEntry,
  type RequestLogOptions,
  type RequestLogReader,
  type RequestOperation,
  type RequestRecord,
  requestLog,
  requestLogReader,
  requestOperations,
} from './request-log.ts';
export { findUsableApp, grantedAppScopes, type UsableApp } from './usable-app.ts';
export {
  flushUsageEvery,
  type TokenUsage,
  type TokenUsageOptions,
  tokenCounterKey,
  tokenUsage,
  type UsageIntervals,
  type UsageLog,
} from './usage.ts';
