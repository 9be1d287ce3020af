// @devplat/cli: the devplat command, usable from code as run(argv, io); it resolves with the exit code.
export { exitCodes } from './errors.ts';
export { type Io, processIo } from './io.ts';
export { run } from './run.ts';
