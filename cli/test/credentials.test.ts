// The credentials file: where it lives, its permissions whatever the umask, and one session per
// console URL.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { configDir, credentialsPath, findSession, forgetSession, storeSession } from '../src/credentials.ts';
import { scratchDir } from './cli.ts';

const session = (token: string) => ({ token, email: 'ada@example.test', expires_at: '2099-01-01T00:00:00.000Z' });
const mode = (path: string) => statSync(path).mode & 0o777;

test('the directory is $DEVPLAT_CONFIG_DIR, else $XDG_CONFIG_HOME/devplat, else ~/.config/devplat', () => {
  assert.equal(configDir({ DEVPLAT_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/b', HOME: '/c' }), '/a');
  assert.equal(configDir({ XDG_CONFIG_HOME: '/b', HOME: '/c' }), '/b/devplat');
  assert.equal(configDir({ HOME: '/c' }), '/c/.config/devplat');
  assert.equal(credentialsPath({ DEVPLAT_CONFIG_DIR: '/a' }), '/a/credentials.json');
});

test('the file is 0600 in a 0700 directory, even under a permissive umask and an open directory', () => {
  const root = scratchDir('modes');
  const directory = join(root, 'nested', 'devplat');
  const previous = process.umask(0);
  try {
    storeSession(join(directory, 'credentials.json'), 'http://127.0.0.1:8082', session('dps_one'));
    assert.equal(mode(directory), 0o700);
    assert.equal(mode(join(directory, 'credentials.json')), 0o600);
    // A directory someone opened up is closed again on the next write.
    chmodSync(directory, 0o755);
    storeSession(join(directory, 'credentials.json'), 'http://127.0.0.1:8082', session('dps_two'));
    assert.equal(mode(directory), 0o700);
    assert.equal(mode(join(directory, 'credentials.json')), 0o600);
  } finally {
    process.umask(previous);
  }
});

test('sessions are kept per console URL; forgetting the last one removes the file', () => {
  const directory = scratchDir('keyed');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, 'credentials.json');
  storeSession(file, 'http://127.0.0.1:8082', session('dps_local'));
  storeSession(file, 'https://console.example.test', session('dps_remote'));
  assert.equal(findSession(file, 'http://127.0.0.1:8082')?.token, 'dps_local');
  assert.equal(findSession(file, 'https://console.example.test')?.token, 'dps_remote');
  assert.equal(forgetSession(file, 'http://127.0.0.1:8082'), true);
  assert.equal(findSession(file, 'http://127.0.0.1:8082'), undefined);
  assert.match(readFileSync(file, 'utf8'), /dps_remote/);
  assert.equal(forgetSession(file, 'http://127.0.0.1:8082'), false);
  assert.equal(forgetSession(file, 'https://console.example.test'), true);
  assert.equal(existsSync(file), false);
});
