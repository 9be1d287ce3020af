// The Kubernetes manifests (infra/kubernetes) as a platform team applies them: each overlay
// rendered by `kubectl kustomize`, every object checked against the Kubernetes schemas of its
// kind, the properties operators rely on asserted, and then each Deployment and the migrate Job
// started as a real process (infra/container/service.mjs with the manifest's arguments, as the
// image runs it) with the manifest's environment and its mounted secret files, probed on the
// ports and paths the manifest declares.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { realPostgresUrl } from '@devplat/test/database';
import { sharedSecrets } from '@devplat/test/env';
import { freePort, repoRoot, type StartedProcess, startProcess } from '@devplat/test/process';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import {
  HorizontalPodAutoscaler,
  type IHorizontalPodAutoscaler,
} from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { CronJob, type ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import { type IJob, Job } from 'kubernetes-models/batch/v1/Job';
import { type IIngress, Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { type INetworkPolicy, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { type IPodDisruptionBudget, PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap, type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { type IService, Service } from 'kubernetes-models/v1/Service';
import pg from 'pg';
import { request } from 'undici';
import { parseAllDocuments } from 'yaml';
import {
  apiSiteRefusals,
  headerBuffers,
  oauthLocationRefusals,
  pageSiteRefusals,
  pageSites,
} from '../../infra/gateway/refusals.ts';

const kubernetesDir = join(repoRoot, 'infra/kubernetes');
const overlays = ['sandbox', 'production'] as const;
type Overlay = (typeof overlays)[number];

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
}
type PodSpec = NonNullable<NonNullable<IDeployment['spec']>['template']['spec']>;
type Container = PodSpec['containers'][number];
type Probe = NonNullable<Container['livenessProbe']>;

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
};

function render(overlay: Overlay): KubeObject[] {
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

const source = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const sourceDir = (dir: string) =>
  readdirSync(join(repoRoot, dir))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => source(join(dir, name)))
    .join('\n');

// ---------------------------------------------------------------------------------------------
// Reading the rendered objects

const ofKind = <T>(objects: KubeObject[], kind: string) => objects.filter((o) => o.kind === kind) as unknown as T[];

function named<T extends { metadata?: { name?: string } }>(list: T[], name: string, what: string): T {
  const found = list.find((item) => item.metadata?.name === name);
  assert.ok(found, `no ${what} named ${name}`);
  return found;
}

interface Workload {
  kind: 'Deployment' | 'Job' | 'CronJob';
  name: string;
  labels: Record<string, string>;
  spec: PodSpec;
  container: Container;
}

function workloads(objects: KubeObject[]): Workload[] {
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

const deployments = (objects: KubeObject[]) => workloads(objects).filter((w) => w.kind === 'Deployment');

function workload(objects: KubeObject[], name: string): Workload {
  const found = workloads(objects).find((w) => w.name === name);
  assert.ok(found, `no workload named ${name}`);
  return found;
}

/** The container's environment as Kubernetes gives it: envFrom ConfigMaps, then env (later wins). */
function containerEnv(objects: KubeObject[], container: Container): Map<string, string> {
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

interface SecretFile {
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
function secretFiles(workload: Workload, env: Map<string, string>): SecretFile[] {
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

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);

/** A Service's port (by name or number) resolved to the Deployment and container port behind it. */
function serviceTarget(objects: KubeObject[], serviceName: string, port: { name?: string; number?: number }) {
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

const portSettings = [
  'PORT',
  'PLAYER_CLIENT_PORT',
  'CONSOLE_PORT',
  'AUTH_INTERNAL_PORT',
  'MOCK_PORT',
  'MANAGEMENT_PORT',
];

/** The container port a probe names, which must be the one MANAGEMENT_PORT opens. */
function probePort(objects: KubeObject[], workload: Workload, probe: Probe | undefined, what: string) {
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

function bytes(quantity: string | number | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(String(quantity ?? ''));
  assert.ok(match, `not a memory quantity: ${quantity}`);
  const units: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, k: 1e3, M: 1e6, G: 1e9 };
  return Number(match[1]) * (match[2] ? (units[match[2]] as number) : 1);
}

function millicores(quantity: string | number | undefined): number {
  const text = String(quantity ?? '');
  assert.match(text, /^\d+(\.\d+)?m?$/, `not a CPU quantity: ${quantity}`);
  return text.endsWith('m') ? Number(text.slice(0, -1)) : Number(text) * 1000;
}

/** The names config.ts (or the tracing package, or for the janitor the admin command) reads. */
const configSource = source('packages/config/src/config.ts');
const tracingSource = sourceDir('packages/tracing/src');
const adminSource = sourceDir('services/admin/src');

function readByCode(name: string, sources: string[]): boolean {
  if (name.endsWith('_FILE')) {
    const setting = name.slice(0, -'_FILE'.length);
    return (
      /`\$\{name\}_FILE`/.test(configSource) &&
      new RegExp(`(?:readSecret|connectionUrl)\\(env, '${setting}'`).test(configSource)
    );
  }
  return sources.some((text) => text.includes(`'${name}'`) || text.includes(`env.${name}`));
}

/** The commands the image's entry point knows (its entryPoints table). */
const imageCommands = [
  ...(/const entryPoints = \{([^}]*)\}/.exec(source('infra/container/service.mjs'))?.[1] ?? '').matchAll(
    /^\s+(\w+):/gm,
  ),
].map((match) => match[1]);

/** The environment the image itself sets (its last ENV instruction), under the manifest's. */
function imageEnv(): Record<string, string> {
  const containerfile = source('infra/container/Containerfile').replace(/\\\n/g, ' ');
  const line = containerfile.split('\n').findLast((l) => l.startsWith('ENV '));
  assert.ok(line, 'the Containerfile sets an environment');
  return Object.fromEntries([...line.slice(4).matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
}

// ---------------------------------------------------------------------------------------------

const rendered = new Map<Overlay, KubeObject[]>();
const objectsOf = (overlay: Overlay) => rendered.get(overlay) as KubeObject[];

describe('Kubernetes manifests (infra/kubernetes)', () => {
  before(() => {
    for (const overlay of overlays) rendered.set(overlay, render(overlay));
  });

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

  test('every pod runs the one image as uid 1000 under the restricted security context, in a namespace that enforces it', () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      const namespace = objects.find((o) => o.kind === 'Namespace');
      assert.equal(namespace?.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'restricted', overlay);
      const kustomization = parseAllDocuments(
        readFileSync(join(kubernetesDir, 'overlays', overlay, 'kustomization.yaml'), 'utf8'),
      )[0]?.toJS() as { images: { name: string; newName: string; newTag: string }[] };
      const image = kustomization.images.find((i) => i.name === 'devplat');
      assert.ok(image, `${overlay}: kustomization images: sets the devplat image`);
      const all = workloads(objects);
      assert.deepEqual(
        all.map((w) => w.name).sort(),
        overlay === 'production'
          ? ['api', 'auth', 'janitor', 'migrate', 'worker']
          : ['api', 'auth', 'console', 'janitor', 'migrate', 'worker'],
      );
      for (const { name, spec, container } of all) {
        const where = `${overlay}: ${name}`;
        assert.equal(container.image, `${image.newName}:${image.newTag}`, where);
        assert.ok(
          imageCommands.includes(container.args?.[0] ?? ''),
          `${where}: ${container.args?.[0]} is an image command`,
        );
        assert.equal(container.args?.[0], name, `${where} runs the command of its own name`);
        assert.equal(container.command, undefined, `${where} keeps the image's entry point`);
        const pod = spec.securityContext ?? {};
        const own = container.securityContext ?? {};
        assert.equal(own.runAsNonRoot ?? pod.runAsNonRoot, true, `${where}: runAsNonRoot`);
        assert.equal(own.runAsUser ?? pod.runAsUser, 1000, `${where}: runAsUser 1000 (the image's node user)`);
        assert.equal(own.readOnlyRootFilesystem, true, `${where}: readOnlyRootFilesystem`);
        assert.equal(own.allowPrivilegeEscalation, false, `${where}: allowPrivilegeEscalation false`);
        assert.deepEqual(own.capabilities, { drop: ['ALL'] }, `${where}: capabilities drop ALL, add none`);
        assert.equal(
          (own.seccompProfile ?? pod.seccompProfile)?.type,
          'RuntimeDefault',
          `${where}: seccomp RuntimeDefault`,
        );
        assert.notEqual(own.privileged, true, where);
        assert.equal(spec.automountServiceAccountToken, false, `${where}: no service account token`);
        assert.ok(
          spec.hostNetwork !== true && spec.hostPID !== true && spec.hostIPC !== true,
          `${where}: no host namespaces`,
        );
        const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
        assert.ok(tmp && spec.volumes?.find((v) => v.name === tmp.name)?.emptyDir, `${where}: an emptyDir at /tmp`);
        for (const mount of container.volumeMounts ?? []) {
          const volume = spec.volumes?.find((v) => v.name === mount.name);
          assert.ok(volume?.secret || volume?.emptyDir, `${where}: volume ${mount.name} is a Secret or an emptyDir`);
        }
      }
    }
  });

  test('every container has CPU and memory requests and limits, and every service probes /livez and /readyz on its MANAGEMENT_PORT', () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      for (const w of workloads(objects)) {
        const where = `${overlay}: ${w.name}`;
        const { requests, limits } = w.container.resources ?? {};
        for (const resource of ['cpu', 'memory'] as const) {
          assert.ok(requests?.[resource] && limits?.[resource], `${where}: ${resource} request and limit`);
        }
        assert.ok(millicores(requests?.cpu) <= millicores(limits?.cpu), `${where}: CPU request ≤ limit`);
        assert.ok(bytes(requests?.memory) <= bytes(limits?.memory), `${where}: memory request ≤ limit`);
        if (w.kind !== 'Deployment') {
          assert.equal(w.container.livenessProbe ?? w.container.readinessProbe, undefined, `${where}: a one-shot job`);
          continue;
        }
        assert.equal(probePort(objects, w, w.container.livenessProbe, 'livenessProbe').path, '/livez', where);
        assert.equal(probePort(objects, w, w.container.readinessProbe, 'readinessProbe').path, '/readyz', where);
        assert.equal(probePort(objects, w, w.container.startupProbe, 'startupProbe').path, '/livez', where);
        const env = containerEnv(objects, w.container);
        const declared = new Set((w.container.ports ?? []).map((p) => String(p.containerPort)));
        for (const setting of portSettings) {
          const value = env.get(setting);
          if (value !== undefined)
            assert.ok(declared.has(value), `${where}: ${setting}=${value} is a declared container port`);
        }
        assert.equal(env.get('MANAGEMENT_PORT') !== undefined, true, `${where}: MANAGEMENT_PORT is set explicitly`);
      }
    }
  });

  test('a pod is given its whole drain: terminationGracePeriodSeconds ≥ SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS', () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      for (const w of deployments(objects)) {
        const env = containerEnv(objects, w.container);
        const delay = env.get('SHUTDOWN_DELAY_MS');
        const timeout = env.get('SHUTDOWN_TIMEOUT_MS');
        assert.ok(delay !== undefined && timeout !== undefined, `${overlay}: ${w.name} sets both drain settings`);
        const grace = w.spec.terminationGracePeriodSeconds ?? 30;
        assert.ok(
          grace >= (Number(delay) + Number(timeout)) / 1000,
          `${overlay}: ${w.name}: grace period ${grace} s < ${delay} ms + ${timeout} ms`,
        );
        assert.equal(
          w.container.lifecycle?.preStop,
          undefined,
          `${overlay}: ${w.name}: the delay is the process's own`,
        );
      }
    }
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
      'sandbox api': ['DATABASE_URL'],
      'sandbox console': ['DATABASE_URL', 'PAIRWISE_SECRET', 'REDIS_URL'],
      'sandbox worker': ['DATABASE_URL'],
      'sandbox migrate': ['DATABASE_URL'],
      'sandbox janitor': ['DATABASE_URL'],
      'production auth': all,
      'production api': ['DATABASE_URL'],
      'production worker': ['DATABASE_URL'],
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

  test('the Ingresses route like the gateway, with TLS, and never to the internal JWKS or a management port', () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      const env = containerEnv(objects, workload(objects, 'auth').container);
      const host = (setting: string) => new URL(env.get(setting) ?? '').hostname;
      const routes = new Map<string, string[]>();
      for (const ingress of ofKind<IIngress>(objects, 'Ingress')) {
        const where = `${overlay}: Ingress ${ingress.metadata?.name}`;
        assert.equal(ingress.spec?.ingressClassName, 'nginx', where);
        assert.equal(ingress.spec?.defaultBackend, undefined, `${where}: no default backend`);
        const hosts = (ingress.spec?.rules ?? []).map((rule) => rule.host ?? '');
        assert.ok(
          (ingress.spec?.tls ?? []).every((t) => t.secretName),
          `${where}: every TLS entry names its certificate's Secret`,
        );
        assert.deepEqual(
          (ingress.spec?.tls ?? []).flatMap((t) => t.hosts ?? []).sort(),
          [...hosts].sort(),
          `${where}: TLS for its hosts`,
        );
        for (const rule of ingress.spec?.rules ?? []) {
          for (const p of rule.http?.paths ?? []) {
            const backend = p.backend.service;
            assert.ok(backend, `${where}: ${rule.host}${p.path} goes to a Service`);
            const target = serviceTarget(objects, backend.name, {
              name: backend.port?.name,
              number: backend.port?.number,
            });
            const route = `${p.pathType} ${p.path} → ${target.workload.name}:${target.containerPort.name}`;
            const list = routes.get(rule.host ?? '') ?? [];
            assert.ok(!list.includes(route), `${where}: ${rule.host} ${route} is routed once`);
            routes.set(rule.host ?? '', [...list, route]);
          }
        }
      }
      const expected = new Map<string, string[]>([
        [
          host('BASE_URL'),
          [
            'Prefix /developer/v1/oauth/ → auth:http',
            'Prefix /developer/v1/.well-known/ → auth:http',
            'Exact /.well-known/oauth-authorization-server/developer/v1 → auth:http',
            'Prefix / → api:http',
          ],
        ],
        [host('PLAYER_CLIENT_URL'), ['Prefix / → auth:player-client']],
        ...(overlay === 'sandbox' ? [[host('CONSOLE_URL'), ['Prefix / → console:http']] as [string, string[]]] : []),
      ]);
      const sorted = (map: Map<string, string[]>) => [...map].map(([h, paths]) => [h, [...paths].sort()]).sort();
      assert.deepEqual(sorted(routes), sorted(expected), overlay);
      // Each public listener behind a route is the one its setting opens, on a port the process listens on.
      for (const [backend, setting] of [
        ['auth', 'PORT'],
        ['auth-player-client', 'PLAYER_CLIENT_PORT'],
        ['api', 'PORT'],
      ] as const) {
        const target = serviceTarget(objects, backend, { name: 'http' });
        assert.equal(
          String(target.containerPort.number),
          containerEnv(objects, target.workload.container).get(setting),
          `${overlay}: Service ${backend} reaches ${target.workload.name}'s ${setting}`,
        );
      }
      // The api's AUTH_INTERNAL_URL is the auth-internal Service, on auth's AUTH_INTERNAL_PORT.
      const internalUrl = new URL(
        containerEnv(objects, workload(objects, 'api').container).get('AUTH_INTERNAL_URL') ?? '',
      );
      const internal = serviceTarget(objects, internalUrl.hostname.split('.')[0] ?? '', {
        number: Number(internalUrl.port),
      });
      assert.equal(internal.service.metadata?.name, 'auth-internal');
      assert.equal(String(internal.containerPort.number), env.get('AUTH_INTERNAL_PORT'));
      assert.ok(![...routes.values()].some((paths) => paths.some((p) => /:(internal|management)$/.test(p))), overlay);
    }
  });

  test("each Ingress refuses as the gateway does: refusals.ts's snippets, the gateway's body limit and retries; the controller's header buffers", () => {
    const gateway = source('infra/gateway/nginx.conf.template');
    const bodyLimit = /^\s*client_max_body_size (\S+);/m.exec(gateway)?.[1];
    assert.ok(bodyLimit, 'the gateway sets client_max_body_size');
    // The gateway's location that takes oauthLocationRefusals().
    const oauthPath = /location (\S+) \{\n\{\{OAUTH_REFUSALS\}\}/.exec(gateway)?.[1];
    assert.ok(oauthPath, 'the gateway has an OAuth location');
    const annotation = (ingress: IIngress, name: string) =>
      ingress.metadata?.annotations?.[`nginx.ingress.kubernetes.io/${name}`];
    // Line by line, ignoring indentation and blank lines (YAML and the template indent differently).
    const lines = (text: string) =>
      text
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
    const sameLines = (where: string, actual: string | undefined, expected: string[], from: string) => {
      const want = lines(expected.join('\n'));
      const have = lines(actual ?? '');
      const at = want.findIndex((line, i) => have[i] !== line);
      assert.ok(
        at === -1 && have.length === want.length,
        `${where} is not refusals.ts's ${from} (line ${(at === -1 ? want.length : at) + 1}: ` +
          `${JSON.stringify(have[at === -1 ? want.length : at])}, expected ` +
          `${JSON.stringify(want[at])}). Print its lines with: node --input-type=module -e ` +
          `"import * as r from './infra/gateway/refusals.ts'; console.log(r.${from.replaceAll('pageSites.', 'r.pageSites.')}.join('\\n'))"`,
      );
    };
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      const env = containerEnv(objects, workload(objects, 'auth').container);
      const host = (setting: string) => new URL(env.get(setting) ?? '').hostname;
      const siteRefusals = new Map<string, { from: string; lines: string[] }>([
        [host('BASE_URL'), { from: 'apiSiteRefusals()', lines: apiSiteRefusals() }],
        [
          host('PLAYER_CLIENT_URL'),
          { from: 'pageSiteRefusals(pageSites.playerClient)', lines: pageSiteRefusals(pageSites.playerClient) },
        ],
        [
          host('CONSOLE_URL'),
          { from: 'pageSiteRefusals(pageSites.console)', lines: pageSiteRefusals(pageSites.console) },
        ],
      ]);
      const serverSnippets = new Map<string, string[]>();
      for (const ingress of ofKind<IIngress>(objects, 'Ingress')) {
        const where = `${overlay}: Ingress ${ingress.metadata?.name}`;
        // ingress-nginx applies an Ingress's annotations to every host and path of it.
        const rules = ingress.spec?.rules ?? [];
        assert.equal(rules.length, 1, `${where}: one host`);
        const served = rules[0]?.host ?? '';
        const paths = (rules[0]?.http?.paths ?? []).map((p) => p.path);
        assert.equal(annotation(ingress, 'proxy-body-size'), bodyLimit, `${where}: the gateway's client_max_body_size`);
        assert.equal(annotation(ingress, 'ssl-redirect'), 'true', where);
        // Retried on the next pod with its POSTs where the gateway does so: auth's POSTs alone.
        const postsRetried: boolean = paths.includes(oauthPath) || served === host('PLAYER_CLIENT_URL');
        assert.equal(
          annotation(ingress, 'proxy-next-upstream'),
          postsRetried ? 'error timeout non_idempotent' : 'error timeout',
          `${where}: proxy-next-upstream`,
        );
        const site = siteRefusals.get(served);
        assert.ok(site, `${where}: ${served} is a public host`);
        const server = annotation(ingress, 'server-snippet');
        if (server !== undefined) {
          serverSnippets.set(served, [...(serverSnippets.get(served) ?? []), ingress.metadata?.name ?? '']);
          sameLines(`${where}'s server-snippet`, server, site.lines, site.from);
        }
        const location = annotation(ingress, 'configuration-snippet');
        if (paths.includes(oauthPath)) {
          assert.equal(served, host('BASE_URL'), `${where}: ${oauthPath} on the API host`);
          assert.deepEqual(paths, [oauthPath], `${where}: its configuration-snippet is for ${oauthPath} alone`);
          sameLines(`${where}'s configuration-snippet`, location, oauthLocationRefusals(), 'oauthLocationRefusals()');
        } else {
          assert.equal(location, undefined, `${where}: no configuration-snippet (the server's refusals hold)`);
        }
      }
      // ingress-nginx keeps one server-snippet per host (its docs: "only once per host").
      assert.deepEqual(
        [...serverSnippets].map(([h, names]) => [h, names.length]).sort(),
        [...new Set(ofKind<IIngress>(objects, 'Ingress').map((i) => i.spec?.rules?.[0]?.host ?? ''))]
          .map((h) => [h, 1])
          .sort(),
        `${overlay}: each host's server-snippet on exactly one of its Ingresses`,
      );
    }
    // The controller's own settings (not in the overlays: the controller is installed separately).
    const [controller, ...rest] = parseAllDocuments(
      readFileSync(join(kubernetesDir, 'ingress-nginx/controller-config.yaml'), 'utf8'),
    ).map((d) => d.toJS() as IConfigMap);
    assert.ok(controller && rest.length === 0, 'ingress-nginx/controller-config.yaml is one ConfigMap');
    assert.doesNotThrow(() => new ConfigMap(controller).validate());
    assert.equal(controller.data?.['large-client-header-buffers'], headerBuffers, "the gateway's header buffers");
    assert.equal(controller.data?.['allow-snippet-annotations'], 'true', 'the controller takes snippets');
    assert.equal(controller.data?.['annotations-risk-level'], 'Critical', 'snippets are Critical annotations');
  });

  test('NetworkPolicies deny ingress by default; only the ingress controller reaches public ports, api pods the internal JWKS, monitoring the management ports', () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
      const selectsAll = (p: INetworkPolicy) =>
        Object.keys(p.spec?.podSelector?.matchLabels ?? {}).length === 0 &&
        !p.spec?.podSelector?.matchExpressions?.length;
      assert.ok(
        policies.some((p) => selectsAll(p) && p.spec?.policyTypes?.includes('Ingress') && !p.spec.ingress?.length),
        `${overlay}: a default-deny ingress policy selecting every pod`,
      );
      const publicPorts = new Set(
        ofKind<IIngress>(objects, 'Ingress').flatMap((i) =>
          (i.spec?.rules ?? []).flatMap((r) =>
            (r.http?.paths ?? []).map((p) => {
              const t = serviceTarget(objects, p.backend.service?.name ?? '', {
                name: p.backend.service?.port?.name,
                number: p.backend.service?.port?.number,
              });
              return `${t.workload.name}:${t.containerPort.name}`;
            }),
          ),
        ),
      );
      for (const w of deployments(objects)) {
        const admitted = new Map<string, string[]>();
        for (const policy of policies) {
          if (!selects(policy.spec?.podSelector?.matchLabels, w.labels)) continue;
          for (const rule of policy.spec?.ingress ?? []) {
            assert.ok(rule.from?.length, `${overlay}: ${policy.metadata?.name} admits every peer`);
            assert.ok(rule.ports?.length, `${overlay}: ${policy.metadata?.name} opens every port`);
            const peers = rule.from.map((peer) => {
              assert.equal(peer.ipBlock, undefined, `${overlay}: ${policy.metadata?.name}: no ipBlock peers`);
              const namespace = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
              const pod = peer.podSelector?.matchLabels?.['app.kubernetes.io/name'];
              assert.ok(namespace || pod, `${overlay}: ${policy.metadata?.name}: a peer names a namespace or pods`);
              return namespace ? `namespace ${namespace}` : `pods ${pod}`;
            });
            for (const port of rule.ports) {
              const name =
                typeof port.port === 'string'
                  ? port.port
                  : w.container.ports?.find((p) => p.containerPort === port.port)?.name;
              if (!w.container.ports?.some((p) => p.name === name)) continue;
              admitted.set(name as string, [...(admitted.get(name as string) ?? []), ...peers]);
            }
          }
        }
        for (const port of w.container.ports ?? []) {
          const name = port.name as string;
          const expected = publicPorts.has(`${w.name}:${name}`)
            ? ['namespace ingress-nginx']
            : name === 'management'
              ? ['namespace monitoring']
              : name === 'internal'
                ? ['pods api']
                : [];
          assert.deepEqual(admitted.get(name) ?? [], expected, `${overlay}: who reaches ${w.name}'s port ${name}`);
        }
      }
    }
  });

  test('auth and the api autoscale on CPU and keep a replica through voluntary disruptions; production allows more', () => {
    const bounds: Record<string, [number, number]> = {};
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      for (const name of ['auth', 'api']) {
        const hpa = ofKind<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler').find(
          (h) => h.spec?.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === name,
        );
        assert.ok(hpa?.spec, `${overlay}: an autoscaler for ${name}`);
        assert.equal(hpa.spec.metrics?.[0]?.resource?.name, 'cpu');
        assert.equal(hpa.spec.metrics?.[0]?.resource?.target.type, 'Utilization');
        assert.ok((hpa.spec.minReplicas ?? 1) >= 2, `${overlay}: at least 2 ${name} replicas`);
        const deployment = ofKind<IDeployment>(objects, 'Deployment').find((d) => d.metadata?.name === name);
        assert.equal(deployment?.spec?.replicas, undefined, `${overlay}: the autoscaler alone sets ${name}'s replicas`);
        bounds[`${overlay} ${name}`] = [hpa.spec.minReplicas ?? 1, hpa.spec.maxReplicas];
        const pdb = ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget').find((p) =>
          selects(p.spec?.selector?.matchLabels, workload(objects, name).labels),
        );
        assert.ok(pdb?.spec, `${overlay}: a PodDisruptionBudget for ${name}`);
        const keeps =
          pdb.spec.maxUnavailable !== undefined
            ? (hpa.spec.minReplicas ?? 1) - Number(pdb.spec.maxUnavailable)
            : Number(pdb.spec.minAvailable);
        assert.ok(keeps >= 1, `${overlay}: ${name} keeps a replica through a drain of nodes`);
      }
    }
    for (const name of ['auth', 'api']) {
      const [sandboxMin, sandboxMax] = bounds[`sandbox ${name}`] as [number, number];
      const [productionMin, productionMax] = bounds[`production ${name}`] as [number, number];
      assert.ok(productionMin > sandboxMin && productionMax > sandboxMax, `production allows more ${name} replicas`);
    }
  });

  test("Prometheus scrapes /metrics on every Deployment's management port, and no other Service exposes one", () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      const monitor = objects.find((o) => o.kind === 'ServiceMonitor') as unknown as ServiceMonitor;
      assert.ok(monitor, `${overlay}: a ServiceMonitor`);
      assert.deepEqual(
        monitor.spec.endpoints?.map((e) => [e.port, e.path]),
        [['management', '/metrics']],
      );
      const scraped = ofKind<IService>(objects, 'Service').filter((s) =>
        selects(monitor.spec.selector.matchLabels, s.metadata?.labels ?? {}),
      );
      for (const w of deployments(objects)) {
        const service = scraped.find((s) => selects(s.spec?.selector, w.labels));
        assert.ok(service, `${overlay}: the ServiceMonitor scrapes ${w.name}`);
        const target = serviceTarget(objects, service.metadata?.name ?? '', { name: 'management' });
        assert.equal(String(target.containerPort.number), containerEnv(objects, w.container).get('MANAGEMENT_PORT'));
      }
      for (const service of ofKind<IService>(objects, 'Service')) {
        for (const port of service.spec?.ports ?? []) {
          const target = serviceTarget(objects, service.metadata?.name ?? '', { name: port.name });
          if (target.containerPort.name !== 'management') continue;
          assert.ok(scraped.includes(service), `${overlay}: ${service.metadata?.name} exposes a management port`);
          assert.equal(
            service.spec?.ports?.length,
            1,
            `${overlay}: ${service.metadata?.name} exposes management alone`,
          );
        }
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The manifests against the code: every Deployment and the Jobs run as real processes.

const redisUrl = process.env.REDIS_URL?.trim() || null;
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';
const run = promisify(execFile);

/** An empty database of this test's own on DATABASE_URL's server: the migrate Job fills it. */
async function emptyDatabase() {
  const name = `devplat_k8s_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: realPostgresUrl as string });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(realPostgresUrl as string);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

interface Pod {
  workload: Workload;
  /** The manifest's container port → the local port the process listens on here instead. */
  ports: Map<number, number>;
  env: Record<string, string>;
}

/**
 * The process environment of a workload: the image's, then the manifest's, with only what a
 * machine without a cluster needs rewritten: HOST to 127.0.0.1, each declared container port to a
 * free local one, the Service in AUTH_INTERNAL_URL to the auth process, secret files to a temp
 * dir holding the test's real values, and a fresh REDIS_KEY_PREFIX.
 */
async function podFor(
  objects: KubeObject[],
  w: Workload,
  context: { dir: string; values: Record<string, string>; prefix: string; pods: Map<string, Pod> },
): Promise<Pod> {
  const manifestEnv = containerEnv(objects, w.container);
  const ports = new Map<number, number>();
  for (const port of w.container.ports ?? []) ports.set(port.containerPort, await freePort());
  const env: Record<string, string> = {
    ...imageEnv(),
    PATH: process.env.PATH ?? '',
    ...Object.fromEntries(manifestEnv),
  };
  env.HOST = '127.0.0.1';
  if (env.REDIS_KEY_PREFIX !== undefined) env.REDIS_KEY_PREFIX = context.prefix;
  for (const setting of portSettings) {
    if (env[setting] === undefined) continue;
    const local = ports.get(Number(env[setting]));
    assert.ok(local, `${w.name}: ${setting}=${env[setting]} is not a declared container port`);
    env[setting] = String(local);
  }
  if (env.AUTH_INTERNAL_URL !== undefined && w.name === 'api') {
    const url = new URL(env.AUTH_INTERNAL_URL);
    const target = serviceTarget(objects, url.hostname.split('.')[0] ?? '', { number: Number(url.port) });
    const auth = context.pods.get(target.workload.name);
    assert.ok(auth, `${w.name}: ${url.host} is served by ${target.workload.name}, which must start first`);
    env.AUTH_INTERNAL_URL = `http://127.0.0.1:${auth.ports.get(target.containerPort.number)}`;
  }
  for (const file of secretFiles(w, manifestEnv)) {
    const value = context.values[file.setting];
    assert.ok(value, `${w.name}: no test value for ${file.setting}`);
    const path = join(context.dir, w.name, file.volume, file.file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, value, { mode: 0o600 });
    env[`${file.setting}_FILE`] = path;
  }
  return { workload: w, ports, env };
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await request(url, { headers });
  return { status: response.statusCode, body: await response.body.text() };
}

/** Polls a probe as the kubelet would, until it answers 200 or `withinMs` passes. */
async function probeAnswer(pod: Pod, probe: { number: number; path: string }, withinMs: number) {
  const url = `http://127.0.0.1:${pod.ports.get(probe.number)}${probe.path}`;
  const deadline = Date.now() + withinMs;
  for (;;) {
    const answer = await get(url).catch((error: Error) => ({ status: 0, body: error.message }));
    if (answer.status === 200 || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function residentMemory(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

describe('Kubernetes manifests against the code', { skip }, () => {
  for (const overlay of overlays) {
    test(`${overlay}: the migrate Job, then every Deployment run as the manifests say, answer /livez and /readyz 200 on their management ports, route as the Ingresses say, and drain to exit 0`, {
      timeout: 120_000,
    }, async (t) => {
      const objects = render(overlay);
      const database = await emptyDatabase();
      const dir = mkdtempSync(join(tmpdir(), 'devplat-k8s-'));
      const started: StartedProcess[] = [];
      t.after(async () => {
        await Promise.all(started.map((p) => p.stop()));
        rmSync(dir, { recursive: true, force: true });
        await database.drop();
      });
      const pods = new Map<string, Pod>();
      const context = {
        dir,
        values: { ...sharedSecrets, DATABASE_URL: database.url, REDIS_URL: redisUrl as string },
        prefix: `devplat-test:k8s:${randomUUID()}:`,
        pods,
      };
      const oneShot = async (name: string) => {
        const w = workload(objects, name);
        const pod = await podFor(objects, w, context);
        const script = join(repoRoot, 'infra/container/service.mjs');
        const result = await run(process.execPath, [script, ...(w.container.args ?? [])], {
          cwd: repoRoot,
          env: pod.env,
        }).catch((error: { code?: number; stdout?: string; stderr?: string }) =>
          assert.fail(`${name} exited ${error.code}:\n${error.stdout}${error.stderr}`),
        );
        return result.stdout;
      };

      // The Job first: every service's readiness checks the schema it applies.
      assert.match(await oneShot('migrate'), /^applied \d{14}_/m);

      const start = async (w: Workload) => {
        const pod = await podFor(objects, w, context);
        const child = await startProcess(
          process.execPath,
          ['infra/container/service.mjs', ...(w.container.args ?? [])],
          pod.env,
          /management: http:\/\/\S+/,
        );
        started.push(child);
        pods.set(w.name, pod);
        return { pod, child };
      };
      // auth first: the api's readiness includes auth's JWKS, at the auth-internal Service.
      const services = deployments(objects);
      const running = [await start(services.find((w) => w.name === 'auth') as Workload)];
      running.push(...(await Promise.all(services.filter((w) => w.name !== 'auth').map(start))));
      assert.deepEqual(
        running.map((r) => r.pod.workload.name).sort(),
        overlay === 'production' ? ['api', 'auth', 'worker'] : ['api', 'auth', 'console', 'worker'],
      );

      for (const { pod, child } of running) {
        const { container } = pod.workload;
        const where = `${overlay}: ${pod.workload.name}`;
        const startup = await probeAnswer(
          pod,
          probePort(objects, pod.workload, container.startupProbe, 'startupProbe'),
          0,
        );
        assert.equal(startup.status, 200, `${where}: startupProbe ${startup.body}`);
        const live = await probeAnswer(
          pod,
          probePort(objects, pod.workload, container.livenessProbe, 'livenessProbe'),
          0,
        );
        assert.deepEqual([live.status, JSON.parse(live.body)], [200, { status: 'alive' }], where);
        const ready = await probeAnswer(
          pod,
          probePort(objects, pod.workload, container.readinessProbe, 'readinessProbe'),
          15_000,
        );
        assert.equal(ready.status, 200, `${where}: readinessProbe ${ready.body}`);
        assert.equal(JSON.parse(ready.body).status, 'ready', where);
        const memory = residentMemory(child.child.pid);
        t.diagnostic(
          `${where}: ready, peak resident memory ${Math.round(memory / 2 ** 20)} MiB (request ${container.resources?.requests?.memory})`,
        );
        assert.ok(memory < bytes(container.resources?.requests?.memory), `${where}: starts within its memory request`);
      }

      // Requests as the Ingresses send them: the backend Service, to the process behind it.
      const settings = Object.fromEntries(containerEnv(objects, workload(objects, 'auth').container));
      const ingressPaths = ofKind<IIngress>(objects, 'Ingress').flatMap((i) =>
        (i.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((path) => ({ host: r.host, path }))),
      );
      const through = async (url: string) => {
        const { host, pathname } = new URL(url);
        const paths = ingressPaths.filter((p) => p.host === host).map((p) => p.path);
        const matches = paths.filter((p) =>
          p.pathType === 'Exact'
            ? pathname === p.path
            : `${pathname}/`.startsWith(p.path?.endsWith('/') ? (p.path as string) : `${p.path}/`),
        );
        const route = matches.sort((a, b) => (b.path?.length ?? 0) - (a.path?.length ?? 0))[0];
        assert.ok(route?.backend.service, `${overlay}: an Ingress routes ${url}`);
        const target = serviceTarget(objects, route.backend.service.name, {
          name: route.backend.service.port?.name,
          number: route.backend.service.port?.number,
        });
        const local = pods.get(target.workload.name)?.ports.get(target.containerPort.number);
        return get(`http://127.0.0.1:${local}${pathname}`, {
          host,
          'x-forwarded-proto': 'https',
          'x-forwarded-host': host,
          'x-forwarded-for': '203.0.113.7',
        });
      };
      const platformOn = settings.DEVELOPER_PLATFORM_ENABLED === 'true';
      for (const path of [
        '/developer/v1/.well-known/oauth-authorization-server',
        '/.well-known/oauth-authorization-server/developer/v1',
      ]) {
        const metadata = await through(new URL(path, settings.BASE_URL).href);
        if (platformOn) {
          assert.equal(metadata.status, 200, `${overlay}: ${path} ${metadata.body}`);
          assert.equal(JSON.parse(metadata.body).issuer, settings.BASE_URL, `${overlay}: the issuer is BASE_URL`);
        } else {
          assert.equal(metadata.status, 503, `${overlay}: ${path} while the platform switch is off`);
          assert.equal(JSON.parse(metadata.body).code, 'FEATURE_DISABLED');
        }
      }
      const capabilities = await through(`${settings.BASE_URL}/capabilities`);
      assert.equal(capabilities.status, 200, `${overlay}: /capabilities through the Ingress ${capabilities.body}`);
      const { environment, capabilities: flags } = JSON.parse(capabilities.body);
      assert.deepEqual(
        [environment, flags.oauth_client_credentials, flags.developer_console],
        [settings.DEVELOPER_PLATFORM_ENVIRONMENT, platformOn, overlay === 'sandbox'],
        `${overlay}: the api runs in the manifest's environment, with its platform switch`,
      );
      const signIn = await through(`${settings.PLAYER_CLIENT_URL}/signin`);
      assert.equal(signIn.status, 200, `${overlay}: the player client's sign-in page on its host`);
      assert.match(signIn.body, /<title>Sign in<\/title>/);
      if (overlay === 'sandbox') {
        const consolePage = await through(`${settings.CONSOLE_URL}/signin`);
        assert.equal(consolePage.status, 200, `${overlay}: the console's sign-in page on its host`);
        assert.match(consolePage.body, /<title>Sign in · Developer console<\/title>/);
      }

      const janitor = await oneShot('janitor');
      assert.match(janitor, /^revoked-tokens: \d+ deleted/m, `${overlay}: the janitor's run:\n${janitor}`);

      // The drain: /readyz turns 503 at once (where SHUTDOWN_DELAY_MS gives it time to be seen),
      // and every process exits 0 within the pod's terminationGracePeriodSeconds.
      await Promise.all(
        running.map(async ({ pod, child }) => {
          const where = `${overlay}: ${pod.workload.name}`;
          const since = Date.now();
          const exited = child.stop();
          if (Number(pod.env.SHUTDOWN_DELAY_MS) > 0) {
            await new Promise((resolve) => setTimeout(resolve, 300));
            const readiness = probePort(objects, pod.workload, pod.workload.container.readinessProbe, 'readinessProbe');
            const draining = await get(`http://127.0.0.1:${pod.ports.get(readiness.number)}${readiness.path}`);
            assert.deepEqual([draining.status, JSON.parse(draining.body).status], [503, 'draining'], where);
          }
          assert.equal(await exited, 0, `${where} drained to exit 0:\n${child.output()}`);
          const grace = pod.workload.spec.terminationGracePeriodSeconds ?? 30;
          assert.ok(Date.now() - since < grace * 1000, `${where} drained within ${grace} s`);
        }),
      );
    });
  }
});
