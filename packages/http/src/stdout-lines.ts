import { pino } from 'pino';

/**
 * stdout as production writes it: the lines one turn of the event loop makes are gathered and
 * written together when the turn ends (setImmediate), through pino's own destination, synchronous
 * as pino's default. One write per turn instead of one per line, and no line waits longer than
 * its turn: a SIGKILL (or the OOM killer) loses only the lines of the turn it cuts. Any exit,
 * process.exit included, writes what the turn gathered (docs/decisions.md).
 *
 * Why not pino.destination's own `minLength`: every line appended to its buffer measures the whole
 * buffer again (`Buffer.byteLength`), a third of a buffered line's cost (sonic-boom 4 and 5).
 */
export interface GatheredLines extends pino.DestinationStream {
  write(line: string): void;
  /** Writes what is gathered now; `done` after. */
  flush(done?: (error?: Error) => void): void;
}

export function linesPerTurn(destination: pino.DestinationStream = pino.destination({ dest: 1, sync: true })) {
  let lines: string[] = [];
  let due = false;
  const writeGathered = () => {
    due = false;
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    destination.write(text);
  };
  process.on('exit', writeGathered);
  const gathered: GatheredLines = {
    write(line) {
      lines.push(line);
      if (due) return;
      due = true;
      setImmediate(writeGathered);
    },
    flush(done) {
      writeGathered();
      done?.();
    },
  };
  return gathered;
}
