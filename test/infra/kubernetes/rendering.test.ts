// The Kubernetes manifests (infra/kubernetes) as a platform team applies them: each overlay
// rendered by `kubectl kustomize`, every object checked against the Kubernetes schemas of its
// kind, what each overlay runs, and every setting a manifest gives a pod (its environment, its
// mounted secret files) one the code reads.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  containerEnv,
  deployments,
  type KubeObject,
  kubernetesDir,
  type Overlay,
  ofKind,
  overlays,
  renderedOverlays,
  secretFiles,
  source,
  workload,
  workloads,
} from '@devplat/test/kubernetes';
import { repoRoot } from '@devplat/test/process';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { type IIngress, Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { type INetworkPolicy, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { type IService, Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';

/** Every kind the manifests may hold, with the model that validates it; any other kind fails. */
const models: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'batch/v1/CronJob': CronJob,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

const sourceDir = (dir: string) =>
  readdirSync(join(repoRoot, dir))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => source(join(dir, name)))
    .join('\n');

/** The names config.ts (or the tracing package, or for the janitor the admin command) reads. */
const configSource = source('packages/1-foundation/config/src/config.ts');
const tracingSource = sourceDir('packages/2-infrastructure/tracing/src');
const adminSource = sourceDir('services/admin/src');

function readByCode(name: string, sources: string[]): boolean {
  // NAME_FILE of a secret setting (readSecret); ADMIN_TOKENS_FILE is a path setting of its own.
  if (name.endsWith('_FILE') && !sources.some((text) => text.includes(`'${name}'`))) {
    const setting = name.slice(0, -'_FILE'.length);
    return (
      /`\$\{name\}_FILE`/.test(configSource) &&
      new RegExp(`(?:readSecret|connectionUrl)\\(env, '${setting}'`).test(configSource)
    );
  }
  return sources.some((text) => text.includes(`'${name}'`) || text.includes(`env.${name}`));
}

describe('Kubernetes manifests (infra/kubernetes)', () => {
  const objectsOf = renderedOverlays();

  test('each overlay renders, and every object is valid against the Kubernetes schema of its kind', () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      assert.ok(objects.length > 20, `${overlay}: ${objects.length} objects`);
      for (const object of objects) {
        const id = `${overlay}: ${object.apiVersion} ${object.kind} ${object.metadata?.name}`;
        const Model = models[`${object.apiVersion}/${object.kind}`];
        assert.ok(Model, `${id}: a kind this test does not know; add its model here`);
        assert.doesNotThrow(() => new Model(object as never).validate(), id);
        if (object.kind !== 'Namespace') {
          assert.equal(object.metadata.namespace, `devplat${overlay === 'production' ? '' : `-${overlay}`}`, id);
        }
      }
    }
  });

  test('production runs no developer console; the sandbox has its Deployment, Service, Ingress rule and NetworkPolicy', () => {
    const consoleParts = (objects: KubeObject[]) => {
      const consoleHost = new URL(containerEnv(objects, workload(objects, 'auth').container).get('CONSOLE_URL') ?? '')
        .hostname;
      return [
        ...deployments(objects)
          .filter((d) => d.container.args?.[0] === 'console')
          .map((d) => ({ kind: d.kind, metadata: { name: d.name } })),
        ...ofKind<IService>(objects, 'Service').filter(
          (s) => s.spec?.selector?.['app.kubernetes.io/name'] === 'console',
        ),
        ...ofKind<IIngress>(objects, 'Ingress').flatMap((i) =>
          (i.spec?.rules ?? []).filter(
            (r) => r.host === consoleHost || r.http?.paths.some((p) => p.backend.service?.name === 'console'),
          ),
        ),
        ...ofKind<INetworkPolicy>(objects, 'NetworkPolicy').filter(
          (n) => n.spec?.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'console',
        ),
      ].map((part) => ('kind' in part ? `${part.kind} ${part.metadata?.name}` : `Ingress rule for ${part.host}`));
    };
    assert.deepEqual(consoleParts(objectsOf('production')), []);
    assert.deepEqual(consoleParts(objectsOf('sandbox')).sort(), [
      'Deployment console',
      'Ingress rule for console.sandbox.devplat.example',
      'NetworkPolicy console-public',
      'Service console',
      'Service console-management',
    ]);
    const environment = (overlay: Overlay) =>
      Object.fromEntries(
        ['DEVELOPER_PLATFORM_ENVIRONMENT', 'DEVELOPER_PLATFORM_ENABLED'].map((name) => [
          name,
          containerEnv(objectsOf(overlay), workload(objectsOf(overlay), 'auth').container).get(name),
        ]),
      );
    assert.deepEqual(environment('production'), {
      DEVELOPER_PLATFORM_ENVIRONMENT: 'production',
      DEVELOPER_PLATFORM_ENABLED: 'false',
    });
    assert.deepEqual(environment('sandbox'), {
      DEVELOPER_PLATFORM_ENVIRONMENT: 'sandbox',
      DEVELOPER_PLATFORM_ENABLED: 'true',
    });
  });

  test('every *_FILE setting reads a key of a mounted Secret, and the example Secrets name every key mounted', () => {
    const examples = parseAllDocuments(readFileSync(join(kubernetesDir, 'secret.example.yaml'), 'utf8')).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string }; stringData: Record<string, string> },
    );
    const exampleKeys = new Map(examples.map((s) => [s.metadata.name, Object.keys(s.stringData)]));
    const needs: Record<string, string[]> = {};
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      for (const w of workloads(objects)) {
        const env = containerEnv(objects, w.container);
        const files = secretFiles(w, env);
        for (const file of files) {
          assert.ok(
            exampleKeys.get(file.secretName)?.includes(file.key),
            `${w.name}: ${file.secretName}/${file.key} in secret.example.yaml`,
          );
          assert.ok(!env.has(file.setting), `${w.name}: ${file.setting} and ${file.setting}_FILE are both set`);
        }
        for (const volume of w.spec.volumes ?? []) {
          if (!volume.secret) continue;
          assert.ok(volume.secret.items?.length, `${w.name}: Secret volume ${volume.name} mounts chosen keys only`);
          for (const item of volume.secret.items ?? []) {
            assert.ok(
              files.some((f) => f.volume === volume.name && f.key === item.key),
              `${w.name}: ${volume.secret.secretName}/${item.key} is mounted but no *_FILE setting reads it`,
            );
          }
        }
        needs[`${overlay} ${w.name}`] = files.map((f) => f.setting).sort();
      }
    }
    const all = ['COOKIE_KEYS', 'DATABASE_URL', 'PAIRWISE_SECRET', 'REDIS_URL', 'SIGNING_KEYS'];
    assert.deepEqual(needs, {
      'sandbox auth': all,
      // Only auth signs and keys anything: no other pod holds the private key. The console holds
      // the pairwise secret alone (the consent.revoked events of an app it deletes name players).
      // The api: Redis for the apps' request log it writes (no readiness check).
      'sandbox api': ['DATABASE_URL', 'REDIS_URL'],
      'sandbox console': ['DATABASE_URL', 'PAIRWISE_SECRET', 'REDIS_URL'],
      'sandbox worker': ['DATABASE_URL'],
      // The admin API: Redis to tell every app cache of a suspension; the operators' token
      // hashes; of the keys the pairwise secret alone, as the console (the consents it ends).
      'sandbox admin-api': ['ADMIN_TOKENS', 'DATABASE_URL', 'PAIRWISE_SECRET', 'REDIS_URL'],
      'sandbox migrate': ['DATABASE_URL'],
      'sandbox janitor': ['DATABASE_URL'],
      'production auth': all,
      'production api': ['DATABASE_URL', 'REDIS_URL'],
      'production worker': ['DATABASE_URL'],
      'production admin-api': ['ADMIN_TOKENS', 'DATABASE_URL', 'PAIRWISE_SECRET', 'REDIS_URL'],
      'production migrate': ['DATABASE_URL'],
      'production janitor': ['DATABASE_URL'],
    });
  });

  test('every environment variable a manifest sets is one the code reads, and no pod gets service-link variables', () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      const services = ofKind<IService>(objects, 'Service');
      for (const w of workloads(objects)) {
        const sources = [configSource, tracingSource, ...(w.name === 'janitor' ? [adminSource] : [])];
        for (const name of containerEnv(objects, w.container).keys()) {
          assert.ok(readByCode(name, sources), `${overlay}: ${w.name} sets ${name}, which no configuration code reads`);
        }
        // Kubernetes's service links (NAME_PORT=tcp://…, NAME_SERVICE_HOST, …) for every Service.
        const links = services.flatMap((s) => {
          const prefix = (s.metadata?.name ?? '').toUpperCase().replaceAll('-', '_');
          return [`${prefix}_SERVICE_HOST`, `${prefix}_SERVICE_PORT`, `${prefix}_PORT`];
        });
        const collisions = links.filter((name) => readByCode(name, [configSource]));
        assert.equal(
          w.spec.enableServiceLinks,
          false,
          `${overlay}: ${w.name}: enableServiceLinks must be false: Kubernetes would set ${collisions.join(', ')} to tcp://… URLs, which config.ts reads as port numbers`,
        );
      }
    }
  });
});
