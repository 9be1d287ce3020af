export { type LimiterOptions, limiterOn } from './limiters.ts';
export { type Rate, type RateLimit, rateLimit } from './rate.ts';
export {
  type Locked,
  type LockKind,
  type SignInAttempt,
  type SignInThrottle,
  signInThrottle,
  type ThrottleSettings,
} from './throttle.ts';
export { waitInWords } from './words.ts';
