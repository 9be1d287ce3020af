export { type RunningPlatform, startPlatform } from './start.ts';
