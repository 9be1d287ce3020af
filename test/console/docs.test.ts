// The developer docs at {console_url}/docs in Chromium: what `npm run docs:build` makes (the API
// references by Redocly, the guides), rendered with the console's Content-Security-Policy for
// them (Redoc's own inline scripts alone, by hash) and no request to any other origin.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '@devplat/test/browser';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { eventually } from '@devplat/test/webhook-receiver';
import type { Browser } from 'playwright-core';
import { buildDocs } from '../../docs/build.ts';

let platform: TestPlatform;
let browser: Browser;
const dataDir = mkdtempSync(join(tmpdir(), 'devplat-docs-'));

before(async () => {
  buildDocs(join(dataDir, 'docs'));
  platform = await startTestPlatform({ DATA_DIR: dataDir }, { webhookWorker: false });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await platform?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Opens a docs page; resolves with the page and what the browser refused or failed to load. */
async function open(path: string) {
  const page = await browser.newPage();
  const refused: string[] = [];
  const elsewhere: string[] = [];
  const logged: string[] = [];
  page.on('console', (message) => {
    logged.push(message.text());
    if (/Content.Security.Policy|Refused to/i.test(message.text())) refused.push(message.text());
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(platform.console) && !/^(data|blob):/.test(request.url())) {
      elsewhere.push(request.url());
    }
  });
  const response = await page.goto(`${platform.console}${path}`);
  return { page, response, refused, elsewhere, logged };
}

describe('the docs at /docs', () => {
  test('the docs home starts with a token in 5 minutes, then lists the guides and the references', async () => {
    const { page, response } = await open('/docs');
    assert.equal(response?.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/docs/');
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'none'/);
    const headings = await page.locator('main h1, main h2').allTextContents();
    assert.deepEqual(headings, ['Developer Platform docs', 'Get a token in 5 minutes', 'Guides', 'API reference']);
    // The token and the cities: the guide's own first sample (which guides.test.ts runs), command for command.
    const guide = readFileSync(new URL('../../docs/guides/app-developer.md', import.meta.url), 'utf8');
    const sample = /<!-- sample: client-credentials -->\s*```sh\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
    const [, ...commands] = await page.locator('main ol pre').allTextContents();
    assert.deepEqual(commands, sample.trim().split(/\n\s*\n/));
    assert.match((await page.locator('main ol').textContent()) ?? '', /devplat apps create --name/);
    // Every page, each with a line on what it is.
    for (const name of [
      "App developer's guide",
      'Developer Platform API 1.1.0',
      'Developer Platform API 1.0.0',
      'Developer console API 1.0.0',
    ]) {
      const item = page.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
      assert.match((await item.textContent()) ?? '', new RegExp(`^${name}: \\S.{20,}$`));
    }
    await page.close();
  });

  test('the 1.1.0 reference renders its operations under its policy, loading nothing from elsewhere', async () => {
    const { page, response, refused, elsewhere, logged } = await open('/docs/api-1.1.0.html');
    assert.equal(response?.status(), 200);
    const policy = response?.headers()['content-security-policy'] ?? '';
    assert.match(policy, /default-src 'none'; script-src 'sha256-/);
    assert.doesNotMatch(policy, /unsafe-eval|script-src[^;]*unsafe-inline/);
    assert.match(policy, /frame-ancestors 'none'/);
    // Redoc ran under the policy: it says so on the console as it starts.
    await eventually(() => logged.some((line) => line.includes('Redoc')));
    // What a reader sees (innerText), not hidden nodes such as the loading banner's template.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point
    const text = async () => (await page.locator('body').innerText()).replace(/\s+/g, ' ');
    await eventually(async () => !(await text()).includes('Loading...'), 20_000);
    for (const operation of ['GET /cities', 'GET /me', 'POST /oauth/token', 'POST /oauth/revoke']) {
      assert.ok((await text()).includes(operation), `${operation} is on the page`);
    }
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/docs-api.png` });
    assert.deepEqual(refused, [], 'nothing refused by the policy');
    assert.deepEqual(elsewhere, [], 'no request to another origin');
    await page.close();
  });

  test('the guide is a page of its own, with no script at all', async () => {
    const { page, response } = await open('/docs/guide-app-developer.html');
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'none'/);
    await page.getByRole('heading', { name: "App developer's guide" }).waitFor();
    await page.close();
  });

  test('only its own pages, only GET and HEAD', async () => {
    for (const path of [
      '/docs/secrets.json',
      '/docs/../.data/secrets.json',
      '/docs/%2e%2e/secrets.json',
      '/docs/nope.html',
    ]) {
      const answer = await fetch(`${platform.console}${path}`);
      assert.equal(answer.status, 404, path);
    }
    const posted = await fetch(`${platform.console}/docs/api-1.1.0.html`, { method: 'POST' });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET, HEAD');
  });
});
