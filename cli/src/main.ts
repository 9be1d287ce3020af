// The devplat command: `node cli/src/main.ts <args>` (npm run devplat -- <args>).
import { processIo } from './io.ts';
import { run } from './run.ts';

// `devplat help | head` closes the pipe early: that is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await run(process.argv.slice(2), processIo());
