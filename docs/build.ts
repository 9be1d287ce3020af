// npm run docs:build [-- <directory>]: the developer documentation as static files (default
// .data/docs), which the console serves at {console_url}/docs and any web server can serve too:
//   index.html            the docs home: "Get a token in 5 minutes", then every page below
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
const openapiDir = join(repoRoot, 'packages/1-foundation/contract/openapi');
const guidesDir = join(repoRoot, 'docs/guides');
// This package's own @redocly/cli (the image's docs stage installs this package alone).
const redocly = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

export const defaultDocsDir = join(repoRoot, '.data/docs');

interface Page {
  file: string;
  title: string;
  /** One line on the docs home: what the page is for. */
  what: string;
  kind: 'guide' | 'reference';
}

// Redoc shows Redocly's logo from their CDN; the page asks no other origin for anything, so the
// logo's address is replaced by an empty image.
const cdnLogo = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g;
const emptyImage = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E';

// Redoc's light theme writes the GET badges (#25b869, 2.6:1) and the search box's placeholder
// (#9b9ca8, 2.7:1) below WCAG AA's 4.5:1 on white; darker shades of its own palette pass (5.9:1 and
// 4.9:1). Its dark theme (:root.dark) is left as it is.
const contrastFix =
  '<style>:root:not(.dark) .tag-get,:root:not(.dark) .tag-query{--tag-color:#13733f}' +
  ':root:not(.dark){--input-content-placeholder-color:var(--color-warm-grey-6)}</style></head>';

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
  writeFileSync(path, readFileSync(path, 'utf8').replace(cdnLogo, emptyImage).replace('</head>', contrastFix));
}

const docsLayout = siteLayout({ name: 'Developer Platform docs', width: '52rem' });

/** A page of ours, in the console's layout: plain HTML, no script. */
const page = (title: string, main: Html) =>
  docsLayout({
    title,
    header: html`<nav aria-label="Docs"><a href="./">Developer Platform docs</a><a href="/">Developer console</a></nav>`,
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
    const what =
      index === 0
        ? 'The current contract: every operation with an example of each request and answer, the OAuth 2.0 flows and the scopes.'
        : `The previous contract, ${version}.`;
    pages.push({ file, title, what, kind: 'reference' });
  }
  reference('console-api-1.0.0.yaml', 'console-api.html', 'Developer console API 1.0.0', out);
  pages.push({
    file: 'console-api.html',
    title: 'Developer console API 1.0.0',
    what: 'The developer console’s JSON API: what devplat and your scripts call to manage apps and sandbox players.',
    kind: 'reference',
  });
  for (const name of readdirSync(guidesDir)
    .filter((entry) => entry.endsWith('.md'))
    .sort()) {
    const markdown = readFileSync(join(guidesDir, name), 'utf8');
    const title = /^# (.+)$/m.exec(markdown)?.[1] ?? name;
    const file = `guide-${name.replace(/\.md$/, '')}.html`;
    // The guides are this repository's own Markdown: their HTML is trusted as marked writes it.
    writeFileSync(join(out, file), page(title, new Html(scrollable(marked.parse(markdown, { async: false })))));
    pages.push({ file, title, what: firstSentence(markdown), kind: 'guide' });
  }
  writeFileSync(join(out, 'index.html'), page('Developer Platform docs', docsHome(pages)));
  return pages;
}

/**
 * A guide's code blocks and tables, which may be wider than a phone, scroll inside themselves, and
 * a keyboard can focus them to scroll them (the stylesheet's .scroll, as the console's tables).
 */
const scrollable = (guide: string) =>
  guide
    .replaceAll('<pre>', '<pre tabindex="0">')
    .replaceAll('<table>', '<div class="scroll" role="region" aria-label="Table" tabindex="0"><table>')
    .replaceAll('</table>', '</table></div>');

/** A guide's one line: the first sentence of its first paragraph, after the title. */
const firstSentence = (markdown: string) =>
  /^# .+\n+(.+?[.!?])(?:\s|$)/m.exec(markdown)?.[1]?.replaceAll('`', '') ?? '';

/**
 * The guide's first sample (a client-credentials token with curl, then /cities), as the docs home's
 * two steps: the same commands as the guide, which test/console/guides.test.ts runs.
 */
function firstTokenCommands(): { token: string; cities: string } {
  const guide = readFileSync(join(guidesDir, 'app-developer.md'), 'utf8');
  const sample = /<!-- sample: client-credentials -->\s*```sh\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
  const [token, cities, ...more] = sample.trim().split(/\n\s*\n/);
  if (!token || !cities || more.length) {
    throw new Error(
      'docs/guides/app-developer.md: the client-credentials sample must be a token command, then a /cities one',
    );
  }
  return { token, cities };
}

/** The docs home: a first token and call in a few steps, then every guide and reference with its line. */
function docsHome(pages: Page[]): Html {
  const { token, cities } = firstTokenCommands();
  const links = (kind: Page['kind']) =>
    pages
      .filter((each) => each.kind === kind)
      .map((each) => html`<li><a href="${each.file}">${each.title}</a>: ${each.what}</li>`);
  return html`<h1>Developer Platform docs</h1>
<h2 id="get-a-token">Get a token in 5 minutes</h2>
<ol>
<li>Create a sandbox app with the <code>city.public.read</code> scope: in the <a href="/apps/new">developer console</a>
(Apps, then Create app), or with <code>devplat apps create --name "My app" --scope city.public.read</code>
(<a href="/downloads/devplat.tgz">download the CLI</a>: <code>npm install -g ./devplat.tgz</code>, Node 20 or newer).</li>
<li>Copy its client ID and client secret (the secret is shown only once) into your shell, with this platform's
API base URL (the app's page in the console shows it under First call too):
<pre tabindex="0"><code>export BASE_URL={base_url}
export CLIENT_ID=svc_...
export CLIENT_SECRET=svs_...</code></pre></li>
<li>Get an app token (client credentials; it lasts 5 minutes):
<pre tabindex="0"><code>${token}</code></pre></li>
<li>Call the city registry with it: it prints every city's name.
<pre tabindex="0"><code>${cities}</code></pre></li>
</ol>
<p>These need curl and jq. The same in JavaScript and Python, and players signing in, are in the guide below.</p>
<h2>Guides</h2>
<ul>${links('guide')}</ul>
<h2>API reference</h2>
<ul>${links('reference')}</ul>`;
}

if (import.meta.main) {
  const out = resolve(process.argv[2] ?? defaultDocsDir);
  const pages = buildDocs(out);
  process.stdout.write(`built ${pages.length + 1} pages into ${out}\n`);
}
