// The Kubernetes manifests (infra/kubernetes): every pod under the restricted security context,
// running the one image as uid 1000, and NetworkPolicies that let each pod be reached only by whom
// it serves.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  containerEnv,
  deployments,
  kubernetesDir,
  ofKind,
  overlays,
  renderedOverlays,
  selects,
  serviceTarget,
  source,
  workloads,
} from '@devplat/test/kubernetes';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IService } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';

/** The commands the image's entry point knows (its entryPoints table). */
const imageCommands = [
  ...(/const entryPoints = \{([^}]*)\}/.exec(source('infra/container/service.mjs'))?.[1] ?? '').matchAll(
    /^\s+'?([\w-]+)'?:/gm,
  ),
].map((match) => match[1]);

describe('Kubernetes manifests (infra/kubernetes)', () => {
  const objectsOf = renderedOverlays();

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
          ? ['admin-api', 'api', 'auth', 'janitor', 'migrate', 'worker']
          : ['admin-api', 'api', 'auth', 'console', 'janitor', 'migrate', 'worker'],
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

  test('NetworkPolicies deny ingress by default; only the ingress controller reaches public ports, api pods the internal JWKS, operator pods the admin API, monitoring the management ports', () => {
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
              // Pods by name (`pods api`), or by another label (`pods devplat.io/operator-access=true`).
              const pod = Object.entries(peer.podSelector?.matchLabels ?? {})
                .map(([key, value]) => (key === 'app.kubernetes.io/name' ? value : `${key}=${value}`))
                .join(',');
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
                : name === 'admin'
                  ? ['pods devplat.io/operator-access=true']
                  : [];
          assert.deepEqual(admitted.get(name) ?? [], expected, `${overlay}: who reaches ${w.name}'s port ${name}`);
        }
      }
    }
  });

  test('the admin API: its own Deployment on loopback elsewhere, a ClusterIP Service no Ingress routes to, and a NetworkPolicy that admits operator pods alone', () => {
    for (const overlay of overlays) {
      const objects = objectsOf(overlay);
      const admin = deployments(objects).find((w) => w.name === 'admin-api');
      assert.ok(admin, `${overlay}: an admin-api Deployment`);
      const port = admin.container.ports?.find((p) => p.name === 'admin');
      assert.ok(port, `${overlay}: admin-api declares its admin port`);
      const env = containerEnv(objects, admin.container);
      assert.equal(env.get('ADMIN_PORT'), String(port.containerPort), `${overlay}: ADMIN_PORT is the admin port`);
      // Opened on the pod's interfaces only here, behind the policy below; no other pod sets it.
      assert.equal(env.get('ADMIN_HOST'), '0.0.0.0');
      for (const w of workloads(objects).filter((each) => each.name !== 'admin-api')) {
        assert.equal(containerEnv(objects, w.container).get('ADMIN_HOST'), undefined, `${overlay}: ${w.name}`);
      }
      const services = ofKind<IService>(objects, 'Service').filter((s) =>
        s.spec?.ports?.some(
          (p) => serviceTarget(objects, s.metadata?.name ?? '', { name: p.name }).containerPort.name === 'admin',
        ),
      );
      assert.deepEqual(
        services.map((s) => [s.metadata?.name, s.spec?.type ?? 'ClusterIP']),
        [['admin-api', 'ClusterIP']],
        overlay,
      );
      const backends = ofKind<IIngress>(objects, 'Ingress').flatMap((i) =>
        (i.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((p) => p.backend.service?.name)),
      );
      assert.ok(!backends.includes('admin-api'), `${overlay}: no Ingress routes to the admin API`);
      const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy').filter(
        (p) =>
          selects(p.spec?.podSelector?.matchLabels, admin.labels) &&
          p.spec?.ingress?.some((rule) => rule.ports?.some((each) => each.port === 'admin')),
      );
      assert.deepEqual(
        policies.map((p) => [p.metadata?.name, p.spec?.ingress?.map((rule) => rule.from)]),
        [['admin-api-operators', [[{ podSelector: { matchLabels: { 'devplat.io/operator-access': 'true' } } }]]]],
        overlay,
      );
    }
  });
});
