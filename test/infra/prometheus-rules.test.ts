// The alerts (infra/prometheus/alerts.yaml) as Prometheus loads them: `promtool check rules` reads
// them, `promtool test rules` runs their unit tests (alerts.test.yaml: every alert fires on a bad
// series and stays quiet on a healthy one), the Kubernetes PrometheusRule is the same groups
// (made from the file by infra/prometheus/prometheus-rule.ts, and in the base kustomization), and
// every alert carries what the person paged needs: `for:`, a severity, a summary, a description
// and a runbook in docs/operating.md. The metrics they read are held to the platform's exports by
// test/operating/alert-metrics.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '@devplat/test/process';
import { parse } from 'yaml';
import { alertsPath, prometheusRulePath, renderPrometheusRule } from '../../infra/prometheus/prometheus-rule.ts';

const promtool = 'promtool';
const promtoolMissing =
  spawnSync(promtool, ['--version']).error === undefined
    ? false
    : 'promtool is not installed (CI installs it with Debian\'s "prometheus" package: apt-get install prometheus)';

/** Where every runbook_url points: a section of docs/operating.md. */
const runbookBase = 'https://devplat.example/docs/operating.md#';
const severities = ['critical', 'warning'];

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Group {
  name: string;
  rules: Rule[];
}

const alertsText = readFileSync(alertsPath, 'utf8');
const groups = (parse(alertsText) as { groups: Group[] }).groups;
const alerts = groups.flatMap((group) => group.rules).filter((rule): rule is Rule & { alert: string } => !!rule.alert);

function promtoolRun(args: string[]) {
  const result = spawnSync(promtool, args, { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(result.status, 0, `promtool ${args.join(' ')}:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

describe('the alert rules under promtool', { skip: promtoolMissing }, () => {
  test('promtool check rules reads infra/prometheus/alerts.yaml', () => {
    assert.match(promtoolRun(['check', 'rules', 'infra/prometheus/alerts.yaml']), /SUCCESS: \d+ rules found/);
  });

  test("promtool test rules passes every alert's unit tests (infra/prometheus/alerts.test.yaml)", () => {
    assert.match(promtoolRun(['test', 'rules', 'infra/prometheus/alerts.test.yaml']), /SUCCESS/);
  });
});

describe('the alert rules', () => {
  test('the PrometheusRule manifest is the rules file, made from it, with exactly the same groups', () => {
    const manifestText = readFileSync(prometheusRulePath, 'utf8');
    assert.equal(
      manifestText,
      renderPrometheusRule(alertsText),
      'infra/kubernetes/base/prometheus-rule.yaml is out of date: run node infra/prometheus/prometheus-rule.ts',
    );
    const manifest = parse(manifestText) as { apiVersion: string; kind: string; spec: { groups: Group[] } };
    assert.equal(manifest.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(manifest.kind, 'PrometheusRule');
    assert.deepEqual(manifest.spec.groups, groups);
    const kustomization = parse(readFileSync(join(repoRoot, 'infra/kubernetes/base/kustomization.yaml'), 'utf8'));
    assert.ok(kustomization.resources.includes('prometheus-rule.yaml'), 'the base kustomization lists it');
  });

  test('every alert has for:, a severity, a summary, a description and a runbook in docs/operating.md', () => {
    assert.ok(alerts.length >= 10, `${alerts.length} alerts`);
    assert.equal(new Set(alerts.map((rule) => rule.alert)).size, alerts.length, 'alert names are unique');
    for (const rule of alerts) {
      assert.match(rule.for ?? '', /^\d+[smh]$/, `${rule.alert}: for:`);
      assert.ok(severities.includes(rule.labels?.severity ?? ''), `${rule.alert}: severity ${severities.join(' or ')}`);
      assert.ok(rule.annotations?.summary, `${rule.alert}: summary`);
      assert.ok(rule.annotations?.description, `${rule.alert}: description`);
      const runbook = rule.annotations?.runbook_url ?? '';
      assert.ok(runbook.startsWith(runbookBase), `${rule.alert}: runbook_url ${runbook} is under ${runbookBase}`);
      assert.match(runbook.slice(runbookBase.length), /^alert-[a-z0-9-]+$/, `${rule.alert}: an alert-… anchor`);
    }
  });

  test('every alert has a unit test that fires it and one that finds it quiet', () => {
    const unitTests = parse(readFileSync(join(repoRoot, 'infra/prometheus/alerts.test.yaml'), 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    const evaluations = unitTests.tests.flatMap((unit) => unit.alert_rule_test ?? []);
    for (const { alert } of alerts) {
      const mine = evaluations.filter((evaluation) => evaluation.alertname === alert);
      assert.ok(
        mine.some((evaluation) => (evaluation.exp_alerts ?? []).length > 0),
        `${alert}: a test where it fires`,
      );
      assert.ok(
        mine.some((evaluation) => (evaluation.exp_alerts ?? []).length === 0),
        `${alert}: a test where it stays quiet`,
      );
    }
  });

  // The runbooks are written in docs/operating.md's "Alerts" section; until it exists this is skipped.
  const operating = readFileSync(join(repoRoot, 'docs/operating.md'), 'utf8');
  const hasAlertsSection = /^## Alerts\b/m.test(operating);
  test('every runbook_url names a heading of docs/operating.md', {
    skip: hasAlertsSection ? false : 'docs/operating.md has no "## Alerts" section yet',
  }, () => {
    const anchors = new Set(
      [...operating.matchAll(/^#{2,4} (.+)$/gm)].map(([, heading]) => githubAnchor(heading as string)),
    );
    for (const rule of alerts) {
      const anchor = (rule.annotations?.runbook_url ?? '').slice(runbookBase.length);
      assert.ok(anchors.has(anchor), `${rule.alert}: docs/operating.md has no heading for #${anchor}`);
    }
  });
});

/** The anchor GitHub gives a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
