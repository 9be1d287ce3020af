// The Python sample app (examples/sample-app-python/app.py) as its README starts it, with Debian's
// python3, Authlib and requests, against a test platform, configured like the guide's samples
// (BASE_URL, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI), and driven in Chromium as a player uses it:
// sign in through the real consent screen, the /me profile and the cities, a refresh, a sign-out
// that revokes. The same steps as the TypeScript sample app's test (test/support/sample-apps.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '@devplat/test/browser';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { freePort, type RunningProcess, runProcess } from '@devplat/test/process';
import { authlibVersion, python, skipWithoutAuthlib } from '@devplat/test/python';
import {
  type ProvisionedApp,
  provisionApp,
  refreshAtSampleApp,
  signInAtSampleApp,
  signOutAtSampleApp,
} from '@devplat/test/sample-apps';
import { eventually } from '@devplat/test/webhook-receiver';
import type { Browser } from 'playwright-core';

describe(`the Python sample app (Authlib ${authlibVersion ?? 'not installed'})`, { skip: skipWithoutAuthlib }, () => {
  let platform: TestPlatform;
  let browser: Browser;
  let sample: RunningProcess;
  let origin: string;
  let app: ProvisionedApp;

  before(async () => {
    platform = await startTestPlatform({}, { webhookWorker: false });
    browser = await launchChromium();
    origin = `http://127.0.0.1:${await freePort()}`;
    app = await provisionApp(platform.console, {
      name: 'Python sample app',
      redirectUri: `${origin}/callback`,
      displayName: 'Sam Sample',
    });
    sample = runProcess(python, ['examples/sample-app-python/app.py'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        BASE_URL: platform.base,
        CLIENT_ID: app.clientId,
        CLIENT_SECRET: app.clientSecret,
        REDIRECT_URI: app.redirectUri,
      },
    });
    await eventually(() => sample.stdout().includes('Press Ctrl-C to stop.') || sample.child.exitCode !== null, 30_000);
    assert.equal(sample.child.exitCode, null, sample.output());
  });
  after(async () => {
    sample?.child.kill('SIGINT');
    await sample?.done;
    await browser?.close();
    await platform?.close();
  });

  test('a player signs in, sees /me and the cities, refreshes, signs out (the consent ends)', async () => {
    assert.match(sample.stdout(), new RegExp(`^Sample app at ${origin} \\(app ${app.clientId}\\)$`, 'm'));
    const page = await browser.newPage();
    await signInAtSampleApp(page, origin, platform.playerClient, app.player);
    await refreshAtSampleApp(page, app.player.displayName);
    await signOutAtSampleApp(page);
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/sample-app-python.png`, fullPage: true });
    await page.close();

    const consents = await platform.platform.database.prisma.consent.findMany({
      where: { app: { clientId: app.clientId } },
    });
    assert.deepEqual(
      consents.map((consent) => [consent.status, consent.revocationReason]),
      [['revoked', 'token_revocation']],
      'revoking the refresh token ended the consent',
    );
    assert.doesNotMatch(sample.output(), /Traceback/, 'no request failed inside the app');
  });

  test('a form without its CSRF token is refused, and a callback no sign-in started', async () => {
    const refresh = await fetch(`${origin}/refresh`, { method: 'POST', body: 'csrf=guess', redirect: 'manual' });
    assert.equal(refresh.status, 403);
    const callback = await fetch(`${origin}/callback?code=stolen&state=guess`, { redirect: 'manual' });
    assert.equal(callback.status, 400);
  });
});
