// Each app's request log, for its developer: noted by auth's and api's envelope observers and
// written to Redis streams off the token and API paths; read by the console (developer-reads.ts).
export {
  type RequestLogFeed,
  type RequestLogFilterValues,
  type RequestLogPage,
  requestLogs,
  statusClasses,
} from './developer-reads.ts';
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
