// npm run docs:build [-- <directory>]: the developer documentation as static files (default
// .data/docs), which the console serves at {console_url}/docs and any web server can serve too:
//   index.html            what is here
//   api-1.1.0.html        the public API's reference (the current contract), Redocly build-docs
//   api-1.0.0.html        the previous contract's
//   console-api.html      the console JSON API's (devplat and scripts)
//   guide-<name>.html     the guides of docs/guides, from Markdown
// Each reference page is one file with Redoc inlined: it loads nothing from elsewhere.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Html, html, siteLayout } from '@devplat/http/html';
import { marked } from 'marked';

const repoRoot = new URL('..', import.meta.url).pathname;
const openapiDir = join(repoRoot, 'packages/contract/openapi');
const guidesDir = join(repoRoot, 'docs/guides');
// This package's own @redocly/cli (the image's docs stage installs this package alone).
const redocly = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

export const defaultDocsDir = join(repoRoot, '.data/docs');

interface Page {
  file: string;
  title: string;
  what: string;
}

// Redoc shows Redocly's logo from their CDN; the page asks no other origin for anything, so the
// logo's address is replaced by an empty image.
const cdnLogo = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g;
const emptyImage = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E';

function reference(source: string, file: string, title: string, out: string) {
  execFileSync(
    process.execPath,
    [redocly, 'build-docs', join(openapiDir, source), '--inlineBundle', '--title', title, '-o', join(out, file)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  const path = join(out, file);
  writeFileSync(path, readFileSync(path, 'utf8').replace(cdnLogo, emptyImage));
}

const docsLayout = siteLayout({ name: 'Developer Platform docs', width: '52rem' });

/** A page of ours, in the console's layout: plain HTML, no script. */
const page = (title: string, main: Html) =>
  docsLayout({
    title,
    header: html`<nav aria-label="Docs"><a href="./">Developer Platform docs</a></nav>`,
    main,
  }).toString();

export function buildDocs(out: string): Page[] {
  mkdirSync(out, { recursive: true });
  const pages: Page[] = [];
  const versions = readdirSync(openapiDir)
    .map((name) => /^developer-platform-(\d+\.\d+\.\d+)\.yaml$/.exec(name)?.[1])
    .filter((version): version is string => version !== undefined)
    .sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
  for (const [index, version] of versions.entries()) {
    const file = `api-${version}.html`;
    const title = `Developer Platform API ${version}`;
    reference(`developer-platform-${version}.yaml`, file, title, out);
    pages.push({ file, title, what: index === 0 ? 'the current contract' : 'the previous contract' });
  }
  reference('console-api-1.0.0.yaml', 'console-api.html', 'Developer console API 1.0.0', out);
  pages.push({
    file: 'console-api.html',
    title: 'Developer console API 1.0.0',
    what: 'what devplat and your scripts call',
  });
  for (const name of readdirSync(guidesDir)
    .filter((entry) => entry.endsWith('.md'))
    .sort()) {
    const markdown = readFileSync(join(guidesDir, name), 'utf8');
    const title = /^# (.+)$/m.exec(markdown)?.[1] ?? name;
    const file = `guide-${name.replace(/\.md$/, '')}.html`;
    // The guides are this repository's own Markdown: their HTML is trusted as marked writes it.
    writeFileSync(join(out, file), page(title, new Html(marked.parse(markdown, { async: false }))));
    pages.push({ file, title, what: 'a guide' });
  }
  const list = pages.map((each) => html`<li><a href="${each.file}">${each.title}</a>: ${each.what}</li>`);
  writeFileSync(join(out, 'index.html'), page('Contents', html`<h1>Developer Platform docs</h1><ul>${list}</ul>`));
  return pages;
}

if (import.meta.main) {
  const out = resolve(process.argv[2] ?? defaultDocsDir);
  const pages = buildDocs(out);
  process.stdout.write(`built ${pages.length + 1} pages into ${out}\n`);
}
