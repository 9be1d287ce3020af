// The PrometheusRule of the Kubernetes manifests (infra/kubernetes/base/prometheus-rule.yaml), made
// from the rules file infra/prometheus/alerts.yaml so the two never drift: the file's groups,
// indented whole under `spec:` (uniform indentation keeps every YAML value, block scalars too).
// Run after changing alerts.yaml:
//   node infra/prometheus/prometheus-rule.ts           writes the manifest
//   node infra/prometheus/prometheus-rule.ts --check   exits 1 when the manifest is out of date
// test/infra/prometheus-rules.test.ts fails when the committed manifest differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const repoRoot = join(import.meta.dirname, '../..');
export const alertsPath = join(repoRoot, 'infra/prometheus/alerts.yaml');
export const prometheusRulePath = join(repoRoot, 'infra/kubernetes/base/prometheus-rule.yaml');

const header = `# GENERATED from infra/prometheus/alerts.yaml by \`node infra/prometheus/prometheus-rule.ts\`:
# edit that file, then run the command (test/infra/prometheus-rules.test.ts fails while they differ).
# The platform's alerts for the Prometheus Operator, beside the ServiceMonitor that scrapes the
# metrics they read; the Prometheus's ruleSelector must select it, as its serviceMonitorSelector
# does the ServiceMonitor. docs/operating.md, "Alerts".
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: devplat-alerts
spec:
`;

/** The manifest for a rules file's text: its leading comment dropped, the rest under spec. */
export function renderPrometheusRule(alertsYaml: string): string {
  const lines = alertsYaml.replace(/\n+$/, '').split('\n');
  const start = lines.findIndex((line) => !line.startsWith('#') && line.trim() !== '');
  if (lines[start] !== 'groups:') throw new Error('alerts.yaml must start (after its comment) with `groups:`');
  return (
    header +
    lines
      .slice(start)
      .map((line) => (line === '' ? '' : `  ${line}`))
      .join('\n') +
    '\n'
  );
}

if (import.meta.main) {
  const rendered = renderPrometheusRule(readFileSync(alertsPath, 'utf8'));
  if (process.argv.includes('--check')) {
    const current = readFileSync(prometheusRulePath, 'utf8');
    if (current !== rendered) {
      process.stderr.write(`${prometheusRulePath} is out of date: run node infra/prometheus/prometheus-rule.ts\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(prometheusRulePath, rendered);
    process.stdout.write(`wrote ${prometheusRulePath}\n`);
  }
}
