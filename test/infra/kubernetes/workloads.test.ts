// The Kubernetes manifests (infra/kubernetes) as operators run them: resources and probes on the
// management port, a grace period that covers the drain, autoscaling and disruption budgets, and
// Prometheus scraping every Deployment.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bytes,
  containerEnv,
  deployments,
  ofKind,
  overlays,
  portSettings,
  probePort,
  renderedOverlays,
  selects,
  serviceTarget,
  workload,
  workloads,
} from '@devplat/test/kubernetes';
import type { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';

function millicores(quantity: string | number | undefined): number {
  const text = String(quantity ?? '');
  assert.match(text, /^\d+(\.\d+)?m?$/, `not a CPU quantity: ${quantity}`);
  return text.endsWith('m') ? Number(text.slice(0, -1)) : Number(text) * 1000;
}

describe('Kubernetes manifests (infra/kubernetes)', () => {
  const objectsOf = renderedOverlays();

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
        for (const setting of [...portSettings, 'ADMIN_PORT']) {
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
