// {console_url}/downloads: the devplat CLI's package, the tarball `npm install -g` takes, as
// `npm run cli:pack` wrote it into DATA_DIR/cli (cli/scripts/pack.ts; npm start packs it).
// Each devplat-<version>.tgz there is served under its own name, and the newest also as
// devplat.tgz, so that the install steps name one address whatever the version. Sandbox only,
// like the rest of the console. A rebuilt tarball is served from the next request on: the file is
// read again when its size or time changes, and its ETag (its SHA-256) changes with it.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pageSites, refusalPageHtml, securityHeaders } from '@devplat/http';

export const stableName = 'devplat.tgz';
const versionedName = /^devplat-(\d+)\.(\d+)\.(\d+)\.tgz$/;
const pathName = /^\/downloads\/([^/]+)$/;

interface Tarball {
  body: Buffer;
  etag: string;
  /** What the cached body was read at: read again when either differs. */
  mtimeMs: number;
  size: number;
}

export const isDownloads = (path: string) => path === '/downloads' || path.startsWith('/downloads/');

/** The newest devplat-<x.y.z>.tgz in `dir`, by version; null when there is none. */
function newestTarball(dir: string): string | null {
  const versions = (existsSync(dir) ? readdirSync(dir) : [])
    .map((name) => ({ name, parts: versionedName.exec(name)?.slice(1).map(Number) }))
    .filter((entry): entry is { name: string; parts: number[] } => entry.parts !== undefined);
  versions.sort((a, b) => {
    for (let index = 0; index < 3; index++) {
      const order = (b.parts[index] as number) - (a.parts[index] as number);
      if (order !== 0) return order;
    }
    return 0;
  });
  return versions[0]?.name ?? null;
}

function page(response: ServerResponse, method: string, status: number, title: string, message: string, headers = {}) {
  const body = refusalPageHtml(pageSites.console, title, message);
  response.writeHead(status, {
    ...securityHeaders("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
    'Cache-Control': 'no-store',
    'Content-Type': 'text/html; charset=utf-8',
    ...headers,
  });
  response.end(method === 'HEAD' ? '' : body);
}

/** The handler of /downloads and below; `dir` holds what cli:pack wrote. */
export function downloadsHandler(dir: string) {
  const cache = new Map<string, Tarball>();
  const load = (name: string): Tarball | null => {
    const file = join(dir, name);
    if (!existsSync(file)) return null;
    const { mtimeMs, size } = statSync(file);
    const cached = cache.get(name);
    if (cached && cached.mtimeMs === mtimeMs && cached.size === size) return cached;
    const body = readFileSync(file);
    const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
    const tarball = { body, etag, mtimeMs, size };
    cache.set(name, tarball);
    return tarball;
  };
  return (request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      page(response, method, 405, 'Method not allowed', 'Downloads answer GET and HEAD only.', { Allow: 'GET, HEAD' });
      return;
    }
    const path = new URL(request.url ?? '/', 'http://console').pathname;
    const asked = pathName.exec(path)?.[1];
    const name = asked === stableName ? newestTarball(dir) : asked && versionedName.test(asked) ? asked : null;
    const tarball = name ? load(name) : null;
    if (!name || !tarball) {
      const packed = newestTarball(dir) !== null;
      const message = packed
        ? `There is no such file. The devplat CLI is at /downloads/${stableName}.`
        : 'The devplat CLI is not packed here: run `npm run cli:pack` (npm start packs it).';
      page(response, method, 404, 'Not found', message);
      return;
    }
    const headers = {
      ...securityHeaders("default-src 'none'; sandbox"),
      // Revalidated on every use: the same version is packed again while it is being developed.
      'Cache-Control': 'no-cache',
      ETag: tarball.etag,
    };
    const ifNoneMatch = request.headers['if-none-match'];
    const matches = (tag: string) => [tarball.etag, '*'].includes(tag.trim().replace(/^W\//, ''));
    if (ifNoneMatch?.split(',').some(matches)) {
      response.writeHead(304, headers);
      response.end();
      return;
    }
    response.writeHead(200, {
      ...headers,
      'Content-Type': 'application/gzip',
      'Content-Length': tarball.body.length,
      'Content-Disposition': `attachment; filename="${name}"`,
    });
    response.end(method === 'HEAD' ? undefined : tarball.body);
  };
}
