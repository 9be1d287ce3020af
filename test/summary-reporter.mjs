// A node:test reporter that writes [passed, failed] (tests, not suites) for test/run.mjs.
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.data?.details?.type === 'suite') continue;
    if (event.type === 'test:pass' && !event.data.skip && !event.data.todo) passed += 1;
    if (event.type === 'test:fail') failed += 1;
  }
  yield JSON.stringify([passed, failed]);
}
