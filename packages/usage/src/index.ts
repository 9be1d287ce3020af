// What operators see of an app's use (tokens per hour, each secret's last use), counted on the token
// path and written off it.
export {
  flushUsageEvery,
  type TokenUsage,
  type TokenUsageOptions,
  tokenCounterKey,
  tokenUsage,
  type UsageIntervals,
  type UsageLog,
} from './usage.ts';
