// A node:test reporter that writes {passed, failed, skipped, unfinished, lingered} (tests, not suites) for
// test/run.mjs. Each test file runs in a process of its own, which says when it got to its end (a
// test:summary naming the file). A file whose process ended before that (an early process.exit, a
// crash, a kill) counts as one failure more, listed in `unfinished`: the runner reports such a file
// as passed when its process exited 0, counting only the tests it had reported. A file the linger
// guard ended after its last test got to its end, and is listed in `lingered`. A skipped test or
// todo, and a skipped suite (whose tests are never reported), is one entry of `skipped`, with its
// reason: test/run.mjs holds them to the list of expected skips. `slowest` names the files whose
// top-level tests took longest (their durations summed), so a slow suite says where its time goes.
// `failures` names each failed test with the start of its error, for the run's last lines: a CI log
// cut to its end still says what failed and why.
import { resolve } from 'node:path';
import { lingerMarker } from './runner/linger-guard.mjs';

export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  const skipped = [];
  const failures = [];
  const files = new Map();
  const fileOf = (path) => {
    if (!files.has(path)) files.set(path, { reported: 0, finished: false, lingered: false, ownResult: null, ms: 0 });
    return files.get(path);
  };
  for await (const { type, data } of source) {
    if (type === 'test:summary' && data.file) fileOf(data.file).finished = true;
    if (type === 'test:stderr' && data.file && data.message.includes(lingerMarker)) {
      fileOf(resolve(data.file)).lingered = true;
    }
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    const ownTest = data.file && data.nesting === 0 && resolve(data.name) === data.file;
    if (data.file && data.nesting === 0 && !ownTest) fileOf(data.file).ms += data.details?.duration_ms ?? 0;
    const skip = data.skip ?? data.todo;
    if (type === 'test:pass' && skip !== undefined && skip !== false) {
      skipped.push({ file: data.file ?? null, name: data.name, reason: typeof skip === 'string' ? skip : '' });
      if (data.details?.type !== 'suite' && data.file) fileOf(data.file).reported += 1;
      continue;
    }
    if (data.details?.type === 'suite') continue;
    // The file's own test, named by its path: the runner reports it only when the file's process
    // failed, or reported no test of its own.
    if (ownTest) {
      fileOf(data.file).ownResult = type;
      continue;
    }
    if (data.file) fileOf(data.file).reported += 1;
    if (type === 'test:pass') passed += 1;
    if (type === 'test:fail') {
      failed += 1;
      failures.push({ file: data.file ?? null, name: data.name, error: errorStart(data.details?.error) });
    }
  }
  const unfinished = [];
  const lingered = [];
  for (const [file, { reported, finished, lingered: ended, ownResult }] of files) {
    const complete = finished || ended;
    if (ownResult === 'test:fail' || !complete) failed += 1;
    else if (ownResult === 'test:pass') passed += 1;
    if (!complete) unfinished.push({ file, reported });
    if (ended) lingered.push(file);
  }
  const slowest = [...files]
    .map(([file, { ms }]) => ({ file, ms }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10);
  yield JSON.stringify({ passed, failed, skipped, unfinished, lingered, slowest, failures });
}

/** The first lines of a failed test's error: the assertion's own message, not the runner's wrapper. */
function errorStart(error) {
  const lines = [];
  // The assertion's error, then what caused it (a store's own error under a dependency's, say).
  for (let cause = error?.cause ?? error, depth = 0; cause && depth < 3; cause = cause.cause, depth++) {
    const text = String(cause.message ?? cause).trimEnd();
    lines.push(...(depth ? `caused by: ${text}` : text).split('\n'));
    if (typeof cause !== 'object') break;
  }
  return (lines.length ? lines : ['failed']).slice(0, 12).join('\n').slice(0, 1500);
}
