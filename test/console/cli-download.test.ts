// The devplat CLI's package at {console_url}/downloads, as `npm run cli:pack` put it into the
// console's DATA_DIR/cli (npm start packs it; this test packs it itself, after the start): served
// as a gzip attachment under its versioned name and as devplat.tgz, and the file a developer
// downloads installs with `npm install -g` on the machine's own Node and npm, then runs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { runProcess } from '@devplat/test/process';
import { packCli } from '../../cli/scripts/pack.ts';
import { version } from '../../cli/src/version.ts';

const scratch = mkdtempSync(join(tmpdir(), 'devplat-cli-download-'));
const versioned = `devplat-${version}.tgz`;
let platform: TestPlatform;
let packed: Buffer;
let beforePacking: Response;

before(async () => {
  platform = await startTestPlatform({}, { webhookWorker: false });
  beforePacking = await fetch(`${platform.console}/downloads/devplat.tgz`);
  packed = readFileSync(await packCli(join(platform.dataDir, 'cli')));
});
after(async () => {
  await platform?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const download = (name: string, init?: RequestInit) => fetch(`${platform.console}/downloads/${name}`, init);

describe('the devplat CLI at /downloads', () => {
  test('before it is packed, the address answers a 404 page that says how to pack it', async () => {
    assert.equal(beforePacking.status, 404);
    assert.match(beforePacking.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await beforePacking.text(), /The devplat CLI is not packed here: run `npm run cli:pack`/);
  });

  test('devplat.tgz and its versioned name: the packed tarball, a gzip attachment named with the version', async () => {
    for (const name of ['devplat.tgz', versioned]) {
      const response = await download(name);
      assert.equal(response.status, 200, name);
      assert.equal(response.headers.get('content-type'), 'application/gzip');
      assert.equal(response.headers.get('content-disposition'), `attachment; filename="${versioned}"`);
      assert.equal(response.headers.get('content-length'), String(packed.length));
      assert.equal(response.headers.get('cache-control'), 'no-cache');
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.match(response.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]{43}"$/);
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), packed);
    }
  });

  test('HEAD answers the headers alone, and a known ETag answers 304', async () => {
    const head = await download('devplat.tgz', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(packed.length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
    const etag = head.headers.get('etag') ?? '';
    const again = await download(versioned, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('etag'), etag);
  });

  test('an unknown file is a 404 page naming the address; other methods than GET and HEAD are 405', async () => {
    for (const name of ['devplat-9.9.9.tgz', 'devplat', 'devplat.tgz/x', '']) {
      const missing = await download(name);
      assert.equal(missing.status, 404, name);
      assert.match(missing.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await missing.text(), /There is no such file\. The devplat CLI is at \/downloads\/devplat\.tgz\./);
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const refused = await download('devplat.tgz', { method });
      assert.equal(refused.status, 405, method);
      assert.equal(refused.headers.get('allow'), 'GET, HEAD');
      await refused.body?.cancel();
    }
  });

  test("the downloaded file installs with npm install -g on the machine's own Node and runs", async () => {
    // The machine's Node and npm, as a developer has them; the checkout's toolchain is not on PATH.
    const systemPath = '/usr/local/bin:/usr/bin:/bin';
    const node = execFileSync('sh', ['-c', 'command -v node'], { env: { PATH: systemPath }, encoding: 'utf8' }).trim();
    const path = [dirname(node), systemPath].join(':');
    const home = join(scratch, 'home');
    const prefix = join(scratch, 'prefix');
    mkdirSync(home, { recursive: true });
    const file = join(home, versioned);
    writeFileSync(file, Buffer.from(await (await download('devplat.tgz')).arrayBuffer()));
    const env = { PATH: path, HOME: home };
    const install = await runProcess(
      'npm',
      ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', `./${versioned}`],
      { cwd: home, env },
    ).done;
    assert.equal(install.code, 0, install.stderr);
    const printed = await runProcess(join(prefix, 'bin/devplat'), ['--version'], { cwd: home, env }).done;
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout, `devplat ${version}\n`);
  });
});
