// What operators see of an app's use (tokens per hour, each secret's last use), counted on the token
// path and written off it; and how such bookkeeping tells an outage of its writes (the request log's too).
export { type FailedWrite, type OutageWords, type WriteOutage, writeOutage } from './outage.ts';
export {
  flushUsageEvery,
  type TokenUsage,
  type TokenUsageOptions,
  tokenCounterKey,
  tokenUsage,
  type UsageIntervals,
  type UsageLog,
} from './usage.ts';
