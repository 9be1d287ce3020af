// The admin API's settings: its own listener, on loopback unless told otherwise, and the operator
// tokens file it reads.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, defaultAdminPort, defaultManagementPorts, loadConfig } from '../src/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'devplat-admin-settings-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

describe('the admin API settings', () => {
  test('defaults: loopback on 8086, management 9086, no tokens file (no admin API)', () => {
    const { admin } = loadConfig({});
    assert.deepEqual(admin, { host: '127.0.0.1', port: 8086, tokensFile: null });
    assert.equal(defaultAdminPort, 8086);
    assert.equal(defaultManagementPorts.admin, 9086);
    const taken = [8080, 8081, 8082, 8083, 8084, ...Object.values(defaultManagementPorts)];
    assert.ok(!taken.includes(defaultAdminPort), "the admin port is none of the platform's other defaults");
  });

  test('HOST does not move it: the image listens everywhere, the admin API stays on loopback unless ADMIN_HOST says', () => {
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).admin.host, '127.0.0.1');
    assert.equal(loadConfig({ ADMIN_HOST: '0.0.0.0' }).admin.host, '0.0.0.0');
    assert.equal(loadConfig({ ADMIN_HOST: '::1' }).admin.host, '::1');
  });

  test('ADMIN_PORT: a port, 0 for any free one; a webhook may not target it on loopback', () => {
    assert.equal(loadConfig({ ADMIN_PORT: '9999' }).admin.port, 9999);
    assert.equal(loadConfig({ ADMIN_PORT: '0' }).admin.port, 0);
    assert.ok(loadConfig({}).webhooks.ownPorts?.includes(8086));
    assert.ok(loadConfig({ ADMIN_PORT: '9999' }).webhooks.ownPorts?.includes(9999));
  });

  test('ADMIN_TOKENS_FILE: made absolute; it may not exist yet, but may not be a directory', () => {
    const file = join(scratch, 'tokens');
    assert.equal(loadConfig({ ADMIN_TOKENS_FILE: file }).admin.tokensFile, file);
    assert.equal(loadConfig({ ADMIN_TOKENS_FILE: 'tokens' }).admin.tokensFile, join(process.cwd(), 'tokens'));
    const error = refusal({ ADMIN_TOKENS_FILE: scratch });
    assert.equal(error.message, `ADMIN_TOKENS_FILE names a directory, not a file (${scratch})`);
  });

  test('bad values are refused naming the variable', () => {
    for (const [env, message] of [
      [
        { ADMIN_HOST: 'localhost' },
        'ADMIN_HOST must be an IP address to listen on, such as 127.0.0.1 (got "localhost")',
      ],
      [
        { ADMIN_HOST: '10.0.0.300' },
        'ADMIN_HOST must be an IP address to listen on, such as 127.0.0.1 (got "10.0.0.300")',
      ],
      [{ ADMIN_PORT: '65536' }, 'ADMIN_PORT must be a port number from 0 to 65535 (got "65536")'],
      [{ ADMIN_PORT: 'admin' }, 'ADMIN_PORT must be a port number from 0 to 65535 (got "admin")'],
    ] as const) {
      assert.equal(refusal(env).message, message);
    }
  });
});
