// The Kubernetes manifests (infra/kubernetes) as the tests under test/infra/kubernetes read them:
// each overlay rendered by `kubectl kustomize`, and the rendered objects read as Kubernetes reads
// them (a workload's pod, its environment, its mounted secret files, the Service port in front of
// it, its probes).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before } from 'node:test';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './process.ts';

export const kubernetesDir = join(repoRoot, 'infra/kubernetes');
export const overlays = ['sandbox', 'production'] as const;
export type Overlay = (typeof overlays)[number];

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
}
export type PodSpec = NonNullable<NonNullable<IDeployment['spec']>['template']['spec']>;
export type Container = PodSpec['containers'][number];
export type Probe = NonNullable<Container['livenessProbe']>;

export function render(overlay: Overlay): KubeObject[] {
  const result = spawnSync('kubectl', ['kustomize', join(kubernetesDir, 'overlays', overlay)], { encoding: 'utf8' });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error(
      'kubectl is not installed (or not on PATH): these tests render the overlays with `kubectl kustomize`. ' +
        'Install kubectl 1.27 or later (it bundles kustomize v5).',
    );
  }
  assert.equal(result.status, 0, `kubectl kustomize overlays/${overlay} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

export const source = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/**
 * Renders every overlay once, before the tests of the suite this is called in; the function it
 * returns gives an overlay's objects inside a test.
 */
export function renderedOverlays(): (overlay: Overlay) => KubeObject[] {
  const rendered = new Map<Overlay, KubeObject[]>();
  before(() => {
    for (const overlay of overlays) rendered.set(overlay, render(overlay));
  });
  return (overlay) => rendered.get(overlay) as KubeObject[];
}

// ---------------------------------------------------------------------------------------------
// Reading the rendered objects

export const ofKind = <T>(objects: KubeObject[], kind: string) =>
  objects.filter((o) => o.kind === kind) as unknown as T[];

function named<T extends { metadata?: { name?: string } }>(list: T[], name: string, what: string): T {
  const found = list.find((item) => item.metadata?.name === name);
  assert.ok(found, `no ${what} named ${name}`);
  return found;
}

export interface Workload {
  kind: 'Deployment' | 'Job' | 'CronJob';
  name: string;
  labels: Record<string, string>;
  spec: PodSpec;
  container: Container;
}

export function workloads(objects: KubeObject[]): Workload[] {
  const pods: Omit<Workload, 'container'>[] = [
    ...ofKind<IDeployment>(objects, 'Deployment').map((d) => ({
      kind: 'Deployment' as const,
      name: d.metadata?.name ?? '',
      labels: d.spec?.template.metadata?.labels ?? {},
      spec: d.spec?.template.spec as PodSpec,
    })),
    ...ofKind<IJob>(objects, 'Job').map((j) => ({
      kind: 'Job' as const,
      name: j.metadata?.name ?? '',
      labels: j.spec?.template.metadata?.labels ?? {},
      spec: j.spec?.template.spec as PodSpec,
    })),
    ...ofKind<ICronJob>(objects, 'CronJob').map((c) => ({
      kind: 'CronJob' as const,
      name: c.metadata?.name ?? '',
      labels: c.spec?.jobTemplate.spec?.template.metadata?.labels ?? {},
      spec: c.spec?.jobTemplate.spec?.template.spec as PodSpec,
    })),
  ];
  return pods.map((pod) => {
    assert.equal(pod.spec.containers.length, 1, `${pod.kind} ${pod.name}: one container`);
    assert.equal(pod.spec.initContainers, undefined, `${pod.kind} ${pod.name}: no init containers`);
    return { ...pod, container: pod.spec.containers[0] as Container };
  });
}

export const deployments = (objects: KubeObject[]) => workloads(objects).filter((w) => w.kind === 'Deployment');

export function workload(objects: KubeObject[], name: string): Workload {
  const found = workloads(objects).find((w) => w.name === name);
  assert.ok(found, `no workload named ${name}`);
  return found;
}

/** The container's environment as Kubernetes gives it: envFrom ConfigMaps, then env (later wins). */
export function containerEnv(objects: KubeObject[], container: Container): Map<string, string> {
  const configMaps = ofKind<IConfigMap>(objects, 'ConfigMap');
  const env = new Map<string, string>();
  for (const from of container.envFrom ?? []) {
    assert.ok(from.configMapRef?.name, `${container.name}: envFrom only from a ConfigMap (secrets are mounted files)`);
    const data = named(configMaps, from.configMapRef.name, 'ConfigMap').data ?? {};
    for (const [name, value] of Object.entries(data)) env.set(name, value);
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.configMapKeyRef;
    if (variable.value !== undefined) env.set(variable.name, variable.value);
    else if (ref) {
      const value = named(configMaps, ref.name ?? '', 'ConfigMap').data?.[ref.key];
      assert.ok(value !== undefined, `${container.name}: ${variable.name} names a missing key ${ref.key}`);
      env.set(variable.name, value);
    } else assert.fail(`${container.name}: ${variable.name} must be a value or a ConfigMap key (secrets are files)`);
  }
  return env;
}

export interface SecretFile {
  /** The setting the file holds: DATABASE_URL for DATABASE_URL_FILE. */
  setting: string;
  path: string;
  volume: string;
  mountPath: string;
  file: string;
  secretName: string;
  key: string;
}

/** Every *_FILE setting, resolved to the mounted secret volume, item and key it reads. */
export function secretFiles(workload: Workload, env: Map<string, string>): SecretFile[] {
  const files: SecretFile[] = [];
  for (const [name, path] of env) {
    if (!name.endsWith('_FILE')) continue;
    const where = `${workload.name}: ${name} (${path})`;
    const mount = workload.container.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
    assert.ok(mount, `${where} is not inside a mounted volume`);
    const secret = workload.spec.volumes?.find((v) => v.name === mount.name)?.secret;
    assert.ok(secret?.secretName, `${where}: volume ${mount.name} is not a Secret`);
    const file = path.slice(mount.mountPath.length + 1);
    const item = secret.items?.find((i) => i.path === file);
    assert.ok(item, `${where}: Secret volume ${mount.name} has no item at ${file}`);
    files.push({
      setting: name.slice(0, -'_FILE'.length),
      path,
      volume: mount.name,
      mountPath: mount.mountPath,
      file,
      secretName: secret.secretName,
      key: item.key,
    });
  }
  return files;
}

export const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);

/** A Service's port (by name or number) resolved to the Deployment and container port behind it. */
export function serviceTarget(objects: KubeObject[], serviceName: string, port: { name?: string; number?: number }) {
  const service = named(ofKind<IService>(objects, 'Service'), serviceName, 'Service');
  const servicePort = service.spec?.ports?.find((p) =>
    port.name !== undefined ? p.name === port.name : p.port === port.number,
  );
  assert.ok(servicePort, `Service ${serviceName} has no port ${port.name ?? port.number}`);
  const targets = deployments(objects).filter((d) => selects(service.spec?.selector, d.labels));
  assert.equal(targets.length, 1, `Service ${serviceName} selects exactly one Deployment`);
  const target = targets[0] as Workload;
  const containerPort = target.container.ports?.find((p) =>
    typeof servicePort.targetPort === 'string'
      ? p.name === servicePort.targetPort
      : p.containerPort === (servicePort.targetPort ?? servicePort.port),
  );
  assert.ok(containerPort?.name, `Service ${serviceName}: no named container port of ${target.name} behind it`);
  return {
    service,
    servicePort,
    workload: target,
    containerPort: { name: containerPort.name, number: containerPort.containerPort },
  };
}

export const portSettings = [
  'PORT',
  'PLAYER_CLIENT_PORT',
  'CONSOLE_PORT',
  'AUTH_INTERNAL_PORT',
  'MOCK_PORT',
  'MANAGEMENT_PORT',
];

/** The container port a probe names, which must be the one MANAGEMENT_PORT opens. */
export function probePort(objects: KubeObject[], workload: Workload, probe: Probe | undefined, what: string) {
  const where = `${workload.name}: ${what}`;
  assert.ok(probe?.httpGet, `${where} is missing or not an HTTP probe`);
  assert.equal(typeof probe.httpGet.port, 'string', `${where} names its port`);
  const port = workload.container.ports?.find((p) => p.name === probe.httpGet?.port);
  assert.ok(port, `${where} names port ${probe.httpGet.port}, which the container does not declare`);
  const management = containerEnv(objects, workload.container).get('MANAGEMENT_PORT');
  assert.equal(
    String(port.containerPort),
    management,
    `${where} is on port ${port.containerPort}, MANAGEMENT_PORT is ${management}`,
  );
  return { number: port.containerPort, path: probe.httpGet.path ?? '/' };
}

export function bytes(quantity: string | number | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(String(quantity ?? ''));
  assert.ok(match, `not a memory quantity: ${quantity}`);
  const units: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, k: 1e3, M: 1e6, G: 1e9 };
  return Number(match[1]) * (match[2] ? (units[match[2]] as number) : 1);
}
