// {console_url}/docs: the developer documentation `npm run docs:build` made (docs/build.ts) —
// the API references and the guides — served as static files, sandbox only, like the rest of the
// console. A reference page runs Redoc, inlined in it: its own inline scripts, each allowed by its
// hash in the page's Content-Security-Policy, and nothing else (no other origin, no eval).
//
// The docs are built once (the image builds them) for any platform: our own pages (the home and
// the guides) write `{base_url}` and `{console_url}`, and this handler writes in the addresses of the
// platform serving them, from its configuration, so every command copied from them works here.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { html, securityHeaders } from '@devplat/http';

interface Served {
  body: Buffer;
  policy: string;
}

const pageName = /^\/docs\/([a-z0-9][a-z0-9.-]*\.html)$/;

/** The platform's addresses the docs' own pages name: BASE_URL's and CONSOLE_URL's. */
export interface DocsAddresses {
  base_url: string;
  console_url: string;
}

/** Our own pages (not Redoc's, whose spec says `{base_url}` as a server variable). */
const isOwnPage = (name: string) => name === 'index.html' || name.startsWith('guide-');

const withAddresses = (page: string, addresses: DocsAddresses) =>
  page.replace(/\{(base_url|console_url)\}/g, (_, name: keyof DocsAddresses) => html`${addresses[name]}`.toString());

/** Every inline script of the page, by the hash CSP 3 compares. */
function scriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, script] of html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)) {
    hashes.add(
      `'sha256-${createHash('sha256')
        .update(script ?? '')
        .digest('base64')}'`,
    );
  }
  return [...hashes];
}

function policyFor(html: string): string {
  const scripts = scriptHashes(html);
  return [
    "default-src 'none'",
    scripts.length ? `script-src ${scripts.join(' ')}` : "script-src 'none'",
    "style-src 'unsafe-inline'",
    'img-src data:',
    'font-src data:',
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function answer(
  response: ServerResponse,
  status: number,
  { policy = "default-src 'none'", ...headers }: Record<string, string> & { policy?: string },
  body: Buffer | string,
) {
  response.writeHead(status, { ...securityHeaders(policy), 'Cache-Control': 'no-cache', ...headers });
  response.end(body);
}

export const isDocs = (path: string) => path === '/docs' || path.startsWith('/docs/');

/** The handler of /docs and below; `dir` holds what docs:build wrote. */
export function docsHandler(dir: string, addresses: DocsAddresses) {
  const cache = new Map<string, Served>();
  const load = (name: string): Served | null => {
    const cached = cache.get(name);
    if (cached) return cached;
    const file = join(dir, name);
    if (!existsSync(file)) return null;
    const built = readFileSync(file, 'utf8');
    const page = isOwnPage(name) ? withAddresses(built, addresses) : built;
    const served = { body: Buffer.from(page), policy: policyFor(page) };
    cache.set(name, served);
    return served;
  };
  return (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://console').pathname;
    if (path === '/docs') {
      answer(response, 308, { Location: '/docs/' }, '');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      answer(
        response,
        405,
        { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' },
        'Only GET and HEAD.\n',
      );
      return;
    }
    const name = path === '/docs/' ? 'index.html' : pageName.exec(path)?.[1];
    const served = name ? load(name) : null;
    if (!served) {
      const built = existsSync(join(dir, 'index.html'));
      const text = built
        ? 'No such page: the docs start at /docs/.\n'
        : 'The docs are not built here: run `npm run docs:build` (npm start builds them).\n';
      answer(response, 404, { 'Content-Type': 'text/plain; charset=utf-8' }, text);
      return;
    }
    const headers = { 'Content-Type': 'text/html; charset=utf-8', policy: served.policy };
    answer(response, 200, headers, request.method === 'HEAD' ? '' : served.body);
  };
}
