// Where a profiled server's CPU went: reads the V8 CPU profiles BENCH_PROFILE left
// (node --cpu-prof) and prints each one's self time by package (or the project's own package, or
// Node's internals) and its busiest functions. With `from`, a function's name, only the samples
// from the first one taken inside that function on count: a server's set-up before its load (the
// refresh benchmark's families minted through code flows) is left out.
//   node bench/profile.ts <dir> [top=15] [from]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package a frame's file belongs to: an npm package, one of the project's, Node's, or V8's own. */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const [scope = '', name = ''] = url.slice(modules + 14).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  if (url.startsWith('node:')) return 'node';
  const own = /\/(packages|services|bench|infra)\/([^/]+)\//.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
}

/** The index of the first sample taken inside a function named `from` (0 without one; past the end if none is). */
function firstSampleIn(profile: Profile, from: string | undefined): number {
  if (!from) return 0;
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  const inside = (id: number | undefined): boolean =>
    id !== undefined && (names.get(id) === from || inside(parents.get(id)));
  const first = profile.samples.findIndex((id) => inside(id));
  return first === -1 ? profile.samples.length : first;
}

function summarise(file: string, top: number, from?: string): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const start = firstSampleIn(profile, from);
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (i < start) return;
    const node = nodes.get(id);
    const micros = profile.timeDeltas[i] ?? 0;
    if (!node || node.callFrame.functionName === '(idle)') return;
    total += micros;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = packageOf(url, functionName);
    byPackage.set(where, (byPackage.get(where) ?? 0) + micros);
    const name = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  });
  const rows = (counts: Map<string, number>) =>
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => `  ${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  return (
    `${file}: ${(total / 1e6).toFixed(1)} CPU seconds busy${from ? ` from the first sample in ${from}` : ''}\n` +
    `by package:\n${rows(byPackage)}\nbusiest functions (self time):\n${rows(byFunction)}\n`
  );
}

const [dir = '.', topArg = '15', from] = process.argv.slice(2);
for (const name of readdirSync(dir).filter((each) => each.endsWith('.cpuprofile'))) {
  process.stdout.write(`${summarise(join(dir, name), Number(topArg), from)}\n`);
}
