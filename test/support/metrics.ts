// A process's /metrics, parsed by a Prometheus text parser: each sample by its name and labels.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export type Samples = Map<string, number>;

const key = (name: string, labels: Record<string, string> = {}) => {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  return entries.length ? `${name}{${entries.map(([k, v]) => `${k}="${v}"`).join(',')}}` : name;
};

/**
 * Every series by `name{label="value",...}`: counters and gauges by their names, histograms by
 * their `_bucket`, `_sum` and `_count` series. The parser reads the whole text first (it throws on
 * a malformed line); it keeps only unlabelled histograms, so their series are read a second time
 * without their TYPE and HELP lines, each as a series of its own.
 */
export async function scrape(managementOrigin: string): Promise<Samples> {
  const response = await fetch(`${managementOrigin}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  const text = await response.text();
  const histograms = parsePrometheusTextFormat(text)
    .filter((family) => family.type === 'HISTOGRAM')
    .map((family) => family.name);
  const untyped = text
    .split('\n')
    .filter(
      (line) => !histograms.some((name) => line.startsWith(`# TYPE ${name} `) || line.startsWith(`# HELP ${name} `)),
    )
    .join('\n');
  const samples: Samples = new Map();
  for (const family of parsePrometheusTextFormat(untyped)) {
    if (family.type === 'SUMMARY' || family.type === 'HISTOGRAM') continue;
    for (const sample of family.metrics) samples.set(key(family.name, sample.labels), Number(sample.value));
  }
  return samples;
}

/** How far each sample moved between two scrapes (only those that moved). */
export function moved(before: Samples, after: Samples): Map<string, number> {
  const changes = new Map<string, number>();
  for (const [name, value] of after) {
    const change = value - (before.get(name) ?? 0);
    if (change !== 0) changes.set(name, change);
  }
  return changes;
}
