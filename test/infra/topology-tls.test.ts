// TLS terminated at the gateway: every URL https, the services behind it on plain http believing
// the gateway's X-Forwarded-Proto (TRUSTED_PROXIES) and no one else's, so the metadata, the
// redirects and the Secure __Host- cookies are right, and the whole flow works as an app sees it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp } from '@devplat/test/connected-apps';
import { fromAddress } from '@devplat/test/from-address';
import { call } from '@devplat/test/http';
import { consoleSetup, needsStores, startTestTopology, type TestTopology } from '@devplat/test/topology';
import { Agent, setGlobalDispatcher } from 'undici';

let topology: TestTopology;
let certificates: string;

describe('TLS terminated at the gateway', { skip: needsStores }, () => {
  before(async () => {
    certificates = mkdtempSync(join(tmpdir(), 'devplat-tls-'));
    const [certificate, key] = [join(certificates, 'gateway.crt'), join(certificates, 'gateway.key')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=devplat gateway test',
        '-addext',
        'subjectAltName=IP:127.0.0.1,IP:127.0.0.2,IP:127.0.0.3',
        '-keyout',
        key,
        '-out',
        certificate,
      ],
      { stdio: 'ignore' },
    );
    // This test process's fetch (and oauth4webapi's) trusts the gateway's certificate, as an app's would.
    setGlobalDispatcher(new Agent({ connect: { ca: readFileSync(certificate) } }));
    topology = await startTestTopology({}, { auth: 1, api: 1, worker: 0, console: 1 }, { certificate, key });
  });
  after(async () => {
    await topology?.close();
    rmSync(certificates, { recursive: true, force: true });
  });

  test('the metadata names https endpoints, and an app completes the code flow with PKCE over https', async () => {
    assert.match(topology.base, /^https:\/\/127\.0\.0\.1:\d+\/developer\/v1$/);
    const metadata = await call(topology.base, '/.well-known/oauth-authorization-server');
    assert.equal(metadata.json.issuer, topology.base);
    assert.equal(metadata.json.authorization_endpoint, `${topology.playerClient}/oauth/authorize`);
    const { app, players } = await consoleSetup(topology);
    const tokens = await allowOverHttp(topology.base, app, players[0] as never);
    const me = await call(topology.base, '/me', { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    assert.equal(me.status, 200, me.text);
  });

  test('behind the gateway the player client sets Secure __Host- cookies and the HSTS header', async () => {
    const response = await fetch(`${topology.playerClient}/signin`);
    assert.equal(response.status, 200);
    const cookies = response.headers.getSetCookie();
    assert.ok(cookies.length > 0);
    for (const cookie of cookies) {
      assert.match(cookie, /^__Host-/, cookie);
      assert.match(cookie, /; secure/i, cookie);
      assert.match(cookie, /; httponly/i, cookie);
    }
    assert.match(response.headers.get('strict-transport-security') ?? '', /max-age=\d+/);
  });

  test('a request straight to a replica, not from the gateway, cannot claim https: its X-Forwarded-Proto is dropped', async () => {
    const [auth] = topology.of('auth');
    const direct = `http://127.0.0.1:${auth?.ports.playerClient}/signin`;
    const forged = await fromAddress('127.0.0.5')(direct, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' },
    });
    assert.equal(forged.status, 400, 'refused: no Secure cookie can be set over plain http');
    assert.match(forged.text, /served over https only/);
    assert.equal(forged.headers['set-cookie'], undefined);
    const trusted = await fromAddress('127.0.0.1')(direct, { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(trusted.status, 200, 'from the gateway’s address the same request is believed');
  });
});
