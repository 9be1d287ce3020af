export { type RunningPlatform, type StartOptions, startPlatform } from './start.ts';
