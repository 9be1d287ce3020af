// The Kubernetes manifests (infra/kubernetes): the Ingresses route as the gateway does, with TLS,
// and refuse what it refuses (infra/gateway/refusals.ts), never reaching an internal or a
// management port.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  containerEnv,
  kubernetesDir,
  ofKind,
  overlays,
  renderedOverlays,
  serviceTarget,
  source,
  workload,
} from '@devplat/test/kubernetes';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { ConfigMap, type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { parseAllDocuments } from 'yaml';
import {
  apiSiteRefusals,
  headerBuffers,
  oauthLocationRefusals,
  pageSiteRefusals,
  pageSites,
} from '../../../infra/gateway/refusals.ts';

describe('Kubernetes manifests (infra/kubernetes)', () => {
  const objectsOf = renderedOverlays();

  test('the Ingresses route like the gateway, with TLS, and never to the internal JWKS, a management port or the admin API', () => {
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
      // Never the internal JWKS, a management port or the admin API.
      assert.ok(
        ![...routes.values()].some((paths) => paths.some((p) => /:(internal|management|admin)$/.test(p))),
        overlay,
      );
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
});
