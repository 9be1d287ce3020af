// Debian's Chromium through playwright-core, and the third-party app's own little server that the
// browser is sent back to after the consent screen.
import { createServer, type Server } from 'node:http';
import { after, before } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from './platform.ts';
import { freePort } from './process.ts';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    // Without the background-networking flags Chromium keeps dialling out of this closed network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/** The app's server: it only says thanks; tests read the URL the browser was sent to. */
export async function startAppServer(): Promise<{ server: Server; callback: string }> {
  const port = await freePort();
  const server = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Connected</h1>'),
  );
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, callback: `http://127.0.0.1:${port}/callback` };
}

/** A test platform, the app's server and Chromium: what every browser test starts with. */
export interface BrowserRig {
  platform: TestPlatform;
  browser: Browser;
  /** The app's registered redirect URI, served by its own server. */
  callback: string;
  close(): Promise<void>;
}

/**
 * A browser rig for a test file: started before its tests, closed after them. Read its fields
 * inside tests; they are set once the file's `before` has run.
 */
export function useBrowserRig(): BrowserRig {
  const rig = {} as BrowserRig;
  before(async () => {
    Object.assign(rig, await startBrowserRig());
  });
  after(() => rig.close?.());
  return rig;
}

export async function startBrowserRig(): Promise<BrowserRig> {
  const platform = await startTestPlatform();
  const { server, callback } = await startAppServer();
  const browser = await launchChromium();
  return {
    platform,
    browser,
    callback,
    close: async () => {
      await browser.close();
      server.close();
      await platform.close();
    },
  };
}
