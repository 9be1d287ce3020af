import { pino } from 'pino';

/**
 * stdout as production writes it: lines are gathered for at most `windowMs` (10 ms) from the first
 * one and written together, through pino's own destination, synchronous as pino's default; 64 KiB
 * gathered is written at once. One write per window instead of one per line or per turn of the
 * event loop: at 10 connections a turn held one or two token requests, and their writes were 4% of
 * the token endpoint's CPU (profiled, docs/benchmarks.md). A quiet service's line waits at most the
 * window; a SIGKILL (or the OOM killer) loses only the lines of the window it cuts. Any exit,
 * process.exit and an uncaught error included, writes what was gathered (docs/decisions.md).
 *
 * Why not pino.destination's own `minLength`: every line appended to its buffer measures the whole
 * buffer again (`Buffer.byteLength`), a third of a buffered line's cost (sonic-boom 4 and 5).
 */
export interface GatheredLines extends pino.DestinationStream {
  write(line: string): void;
  /** Writes what is gathered now; `done` after. */
  flush(done?: (error?: Error) => void): void;
}

/** How long a line waits at most before it is written, and so what a SIGKILL can cut. */
export const logWindowMs = 10;
const writeAtOnce = 64 * 1024;

export function gatheredLines(
  destination: pino.DestinationStream = pino.destination({ dest: 1, sync: true }),
  windowMs = logWindowMs,
): GatheredLines {
  let lines: string[] = [];
  let gathered = 0;
  let due: NodeJS.Timeout | null = null;
  const writeGathered = () => {
    if (due) clearTimeout(due);
    due = null;
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    gathered = 0;
    destination.write(text);
  };
  process.on('exit', writeGathered);
  return {
    write(line) {
      lines.push(line);
      gathered += line.length;
      if (gathered >= writeAtOnce) return writeGathered();
      // Unref'd: a window never holds a process open; its exit writes what is left.
      due ??= setTimeout(writeGathered, windowMs).unref();
    },
    flush(done) {
      writeGathered();
      done?.();
    },
  };
}
