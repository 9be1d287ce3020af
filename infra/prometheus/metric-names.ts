// The metric names a PromQL expression reads, for the tests that hold every alert and every
// dashboard panel to what the platform exports (test/operating/alert-metrics.test.ts): identifiers
// with the platform's prefix, outside quoted label values. Recording rules' names
// (`devplat:…`) are not metrics a process exports, and the prefix with `_` leaves them out.

/** Every metric the platform exports starts with this. */
export const metricPrefix = 'devplat_';

const histogramSuffixes = ['_bucket', '_count', '_sum'] as const;

/** The `devplat_` names `expr` reads, each once, in order of appearance. */
export function metricNames(expr: string): string[] {
  const unquoted = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  const names = unquoted.match(new RegExp(`(?<![A-Za-z0-9_:])${metricPrefix}[A-Za-z0-9_]+`, 'g')) ?? [];
  return [...new Set(names)];
}

/**
 * The family a sample name belongs to, given the families a scrape declared (name → TYPE): a
 * histogram's `_bucket`, `_count` and `_sum` are its own; any other name is its own family.
 */
export function familyOf(name: string, families: ReadonlyMap<string, string>): string {
  for (const suffix of histogramSuffixes) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const type = families.get(base);
    if (type === 'histogram' || type === 'summary') return base;
  }
  return name;
}

/** Every query of a Grafana dashboard: each panel target's `expr`, and each variable's query. */
export function dashboardExpressions(dashboard: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown, key: string | null) => {
    if (typeof value === 'string') {
      if (key === 'expr' || key === 'query') found.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, key);
    } else if (value && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) walk(item, name);
    }
  };
  walk(dashboard, null);
  return found;
}
