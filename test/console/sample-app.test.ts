// The sample app (examples/sample-app) as a developer starts it, `npm run sample`, against a
// running platform, driven in Chromium as a player uses it: sign in through the consent screen, the
// /me profile and the cities, a refresh, a sign-out that revokes, and the consent webhooks that
// devplat listen brings to it, each verified by the app.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '@devplat/test/browser';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { freePort, type RunningProcess, runProcess } from '@devplat/test/process';
import { refreshAtSampleApp, signInAtSampleApp, signOutAtSampleApp } from '@devplat/test/sample-apps';
import { eventually, postForgedWebhook } from '@devplat/test/webhook-receiver';
import type { Browser } from 'playwright-core';

const scratch = mkdtempSync(join(tmpdir(), 'devplat-sample-'));
let platform: TestPlatform;
let browser: Browser;
let sample: RunningProcess;
let origin: string;
const output = () => sample.output();

before(async () => {
  platform = await startTestPlatform({}, { webhookWorker: false });
  browser = await launchChromium();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  sample = runProcess(process.execPath, ['infra/toolchain/run.mjs', 'sample'], {
    env: {
      ...process.env,
      DEVPLAT_CONSOLE_URL: platform.console,
      BASE_URL: platform.base,
      SAMPLE_PORT: String(port),
      SAMPLE_DATA: join(scratch, 'sample-app.json'),
    },
  });
  await eventually(() => output().includes('Press Ctrl-C to stop.') && /\[listen\] Ready/.test(output()), 60_000);
});
after(async () => {
  // SIGTERM: the npm-script wrapper passes it on to the app (a SIGINT sent to the wrapper alone is not).
  sample?.child.kill('SIGTERM');
  await sample?.done;
  await browser?.close();
  await platform?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the sample app', () => {
  test('a player signs in, sees /me and the cities, refreshes, signs out; the app verifies both consent webhooks', async () => {
    assert.match(output(), new RegExp(`^Sample app at ${origin} \\(app svc_[a-z2-7]{26}\\)$`, 'm'));
    const [, username, password] = /as the sandbox player (\S+), password (\S+)$/m.exec(output()) ?? [];
    assert.ok(username && password, output());

    const page = await browser.newPage();
    await signInAtSampleApp(page, origin, platform.playerClient, { username, password, displayName: 'Sam Sample' });

    // consent.granted, through devplat listen, verified by the app.
    await eventually(async () => {
      await page.reload();
      return (await page.getByRole('cell', { name: 'consent.granted' }).count()) === 1;
    }, 20_000);

    await refreshAtSampleApp(page, 'Sam Sample');
    await signOutAtSampleApp(page);
    await eventually(async () => {
      await page.reload();
      return (await page.getByRole('cell', { name: 'token_revocation' }).count()) === 1;
    }, 20_000);
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/sample-app.png`, fullPage: true });
    assert.match(output(), /\[listen\] .*consent\.granted {2}[0-9a-f-]{36} {2}→ 204/);
    assert.match(output(), /\[listen\] .*consent\.revoked {2}[0-9a-f-]{36} {2}→ 204/);
    await page.close();
  });

  test('a forged webhook is refused, and a form without its token too', async () => {
    const forged = await postForgedWebhook(`${origin}/webhooks`, '{"type":"consent.revoked","data":{}}');
    assert.equal(forged.status, 400);
    const refresh = await fetch(`${origin}/refresh`, { method: 'POST', body: 'csrf=guess', redirect: 'manual' });
    assert.equal(refresh.status, 403);
  });
});
