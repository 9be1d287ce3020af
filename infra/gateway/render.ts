// Fills in infra/gateway/nginx.conf.template: where the gateway listens, under which host names,
// and which replicas stand behind each upstream.
import { readFileSync } from 'node:fs';
import { apiSiteRefusals, headerBuffers, oauthLocationRefusals, pageSiteRefusals, pageSites } from './refusals.ts';

export interface Site {
  /** nginx listen addresses: `127.0.0.1:8080`, `443`, `[::]:443`. */
  listen: string[];
  /** The host name the site answers to (server_name); `_` for any. */
  host: string;
}

export interface GatewayOptions {
  /** Where nginx keeps its pid and temporary files (writable by its user). */
  runtimeDir: string;
  workerProcesses?: number | 'auto';
  /** A file for the access log (paths only, never a query), or null for none. */
  accessLog?: string | null;
  /** {base_url}'s host and the auth and api replicas (host:port of their public listeners). */
  base: Site;
  auth: string[];
  api: string[];
  /** PLAYER_CLIENT_URL's host and the auth replicas' player client listeners. */
  playerClient: Site & { servers: string[] };
  /** CONSOLE_URL's host and its listeners; null where the console does not run (production). */
  console: (Site & { servers: string[] }) | null;
  /**
   * AUTH_INTERNAL_URL's listener, for the api replicas alone: an internal address, never a public
   * one (plain http; in Kubernetes a Service does this). Null where something else balances it.
   */
  internal?: (Pick<Site, 'listen'> & { servers: string[] }) | null;
  /** TLS termination: certificate and key files (PEM); null serves plain http. */
  tls?: { certificate: string; key: string } | null;
}

const template = readFileSync(new URL('nginx.conf.template', import.meta.url), 'utf8');

const indent = (spaces: number, lines: string[]) => lines.map((line) => `${' '.repeat(spaces)}${line}`).join('\n');

// max_fails=0: nginx never rests a replica. A rested one (max_fails=1) stays out of every request
// but one until a request to it has come back, per nginx worker: in a rolling release, a worker
// that had not yet sent a request to the replica back from its restart found it still resting the
// instant the next replica stopped accepting, and answered "no live upstreams" (503; seen once in
// five runs). Without rests a refused connection is simply passed to the next replica
// (proxy_next_upstream), which on loopback or a LAN costs well under a millisecond.
const servers = (addresses: string[]) =>
  indent(
    4,
    addresses.map((address) => `server ${address} max_fails=0;`),
  );

export function renderGatewayConfig(options: GatewayOptions): string {
  if ([options.auth, options.api, options.playerClient.servers].some((list) => list.length === 0)) {
    throw new Error('every upstream needs at least one replica');
  }
  const tls = options.tls ?? null;
  const listen = (site: Site) =>
    indent(
      4,
      site.listen.map((address) => `listen ${address}${tls ? ' ssl' : ''};`),
    );
  const tlsLines = tls
    ? indent(4, [
        `ssl_certificate ${tls.certificate};`,
        `ssl_certificate_key ${tls.key};`,
        'ssl_protocols TLSv1.2 TLSv1.3;',
        'add_header Strict-Transport-Security "max-age=31536000" always;',
      ])
    : '';
  const consoleSite = options.console;
  const consoleRefusals = indent(4, pageSiteRefusals(pageSites.console));
  const internal = options.internal ?? null;
  const values: Record<string, string> = {
    WORKER_PROCESSES: String(options.workerProcesses ?? 'auto'),
    RUNTIME_DIR: options.runtimeDir,
    ACCESS_LOG: options.accessLog ? `${options.accessLog} devplat` : 'off',
    AUTH_SERVERS: servers(options.auth),
    API_SERVERS: servers(options.api),
    PLAYER_CLIENT_SERVERS: servers(options.playerClient.servers),
    BASE_LISTEN: listen(options.base),
    BASE_HOST: options.base.host,
    PLAYER_CLIENT_LISTEN: listen(options.playerClient),
    PLAYER_CLIENT_HOST: options.playerClient.host,
    TLS: tlsLines,
    HEADER_BUFFERS: headerBuffers,
    API_REFUSALS: indent(4, apiSiteRefusals()),
    OAUTH_REFUSALS: indent(6, oauthLocationRefusals()),
    PAGE_REFUSALS: indent(4, pageSiteRefusals(pageSites.playerClient)),
    CONSOLE_UPSTREAM: consoleSite ? `  upstream devplat_console {\n${servers(consoleSite.servers)}\n  }\n` : '',
    CONSOLE_SERVER: consoleSite
      ? [
          '',
          '  # The developer console (sandbox only).',
          '  server {',
          listen(consoleSite),
          `    server_name ${consoleSite.host};`,
          tlsLines,
          consoleRefusals,
          '    location / {',
          '      proxy_pass http://devplat_console;',
          '    }',
          '  }',
        ].join('\n')
      : '',
    INTERNAL_SERVER: internal
      ? [
          '',
          '  # The internal JWKS, for the api replicas only: an internal address, never a public host.',
          `  upstream devplat_auth_internal {\n${servers(internal.servers)}\n  }`,
          '  server {',
          indent(
            4,
            internal.listen.map((address) => `listen ${address};`),
          ),
          '    location = /jwks.json {',
          '      proxy_pass http://devplat_auth_internal;',
          '    }',
          '    location / {',
          '      return 404;',
          '    }',
          '  }',
        ].join('\n')
      : '',
  };
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`the gateway template names an unknown value {{${name}}}`);
    return value;
  });
}
