// Loaded into each test file's process (--import, see run-files.ts), once its tests have run:
// - a file still running a while after its last test (a server, socket or timer left open) is
//   ended, and named, instead of holding up the run. Every test has reported by then; only the
//   file's own end-of-file summary is lost, which the marker below stands in for
//   (summary-reporter.mjs). The bound starts before the file's own root `after` hooks, so it covers
//   them too: a minute, ample for a teardown.
// - at its exit event the process exits at once: node's own teardown after it once spun at 100% CPU
//   for minutes (operable.test.ts under load; a stack in Environment::CleanupHandles), which is
//   what "a test file sat busy for minutes after its last test passed" in CI looked like.
// node's --test-force-exit would end a lingering file at once, but it also ends files whose reports
// are still on their way and loses them: a file then counts fewer tests, and passes
// (nodejs/node#64833; CI once counted 606 tests of 640 that way, none failed).
import { after } from 'node:test';

export const lingerMarker = 'ended by test/runner/linger-guard.mjs';

const lingerMs = Number(process.env.DEVPLAT_TEST_LINGER_MS || 60_000);
if (process.env.NODE_TEST_CONTEXT) {
  after(() => {
    // Registered now, after the test runner's own exit listeners; inside one, process.exit exits.
    process.once('exit', (code) => process.exit(code));
    setTimeout(() => {
      const open = process.getActiveResourcesInfo().join(', ');
      process.stderr.write(`⚠ still running ${lingerMs} ms after its last test (open: ${open}): ${lingerMarker}\n`);
      process.exit(0);
    }, lingerMs).unref();
  });
}
