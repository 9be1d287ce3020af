import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  newKey,
  operatorTokenPrefix,
  parseTokensFile,
  secretHash,
  type TokensFileLog,
  watchTokensFile,
} from '../src/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'devplat-keys-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function recordingLog() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log: TokensFileLog = {
    info: (fields, message) => lines.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
    warn: (fields, message) => lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
  };
  return { log, lines, text: () => JSON.stringify(lines) };
}

/** Polls `check` every 20 ms until it holds or `withinMs` passed; returns how long it took. */
async function within(withinMs: number, check: () => boolean): Promise<number> {
  const started = Date.now();
  while (!check()) {
    assert.ok(Date.now() - started < withinMs, `not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

const token = () => newKey(operatorTokenPrefix);

describe('the operator tokens file', () => {
  test('one token a line, comments and blank lines skipped; a bad line is reported by its number and skipped', () => {
    const [alice, bob] = [token(), token()];
    const text = [
      '# operators of the sandbox',
      '',
      `alice write ${secretHash(alice)}   # on call`,
      `   bob\tread\t${secretHash(bob)}`,
      'carol write', // too few fields
      `dave admin ${secretHash(token())}`, // no such role
      `erin write ${secretHash(token()).toUpperCase()}`, // not lower-case hex
      `frank read ${secretHash(alice)}`, // alice's hash again
      `gina write ${alice}`, // the token itself
      `-hank read ${secretHash(token())}`, // not a name
      `${'i'.repeat(101)} read ${secretHash(token())}`, // too long a name
    ].join('\n');
    const { tokens, problems } = parseTokensFile(text);
    assert.deepEqual(
      tokens.map(({ name, role, line }) => [name, role, line]),
      [
        ['alice', 'write', 3],
        ['bob', 'read', 4],
      ],
    );
    assert.deepEqual(
      problems.map(({ line }) => line),
      [5, 6, 7, 8, 9, 10, 11],
    );
    assert.match(problems[0]?.reason ?? '', /expected <name> <role> <hash>, found 2 field/);
    assert.match(problems[1]?.reason ?? '', /role must be read or write/);
    assert.match(problems[2]?.reason ?? '', /64 lower-case hexadecimal digits/);
    assert.match(problems[3]?.reason ?? '', /the same hash as line 3/);
    assert.match(problems[4]?.reason ?? '', /holds a token/);
    // A report never quotes the line: no token, no hash, no name.
    const reported = JSON.stringify(problems);
    assert.doesNotMatch(reported, /devplat_admin_|[0-9a-f]{64}|gina|hank/i);
    assert.deepEqual(parseTokensFile('\r\n# nothing\r\n'), { tokens: [], problems: [] });
  });

  test('a watched file: tokens found by the token alone, a change taken within the poll, a missing file fails closed and is said once', async () => {
    const file = join(scratch, 'tokens');
    const [alice, bob] = [token(), token()];
    writeFileSync(file, `alice write ${secretHash(alice)}\nbob read ${secretHash(bob)}\n`);
    const { log, lines, text } = recordingLog();
    const watched = watchTokensFile(file, log, { intervalMs: 50 });
    try {
      assert.deepEqual(watched.find(alice), { name: 'alice', role: 'write' }, 'read at once, before any poll');
      assert.deepEqual(watched.find(bob), { name: 'bob', role: 'read' });
      assert.equal(watched.find(token()), null);
      assert.equal(watched.find(secretHash(alice)), null, 'the hash is not the token');
      assert.equal(watched.find('x'.repeat(10_000)), null);

      writeFileSync(file, `bob read ${secretHash(bob)}\ncarol read\n`);
      await within(2_000, () => watched.find(alice) === null);
      assert.deepEqual(watched.find(bob), { name: 'bob', role: 'read' }, 'the rest of the file still works');
      await within(2_000, () => lines.some((line) => line.fields.line === 2));

      unlinkSync(file);
      await within(2_000, () => watched.size() === 0);
      assert.equal(watched.find(bob), null);

      writeFileSync(file, `alice write ${secretHash(alice)}\n`);
      await within(2_000, () => watched.find(alice) !== null);
      // However many polls met the missing file, it was said once.
      assert.equal(lines.filter((line) => line.fields.error === 'ENOENT').length, 1);
      assert.doesNotMatch(text(), new RegExp(`${alice}|${bob}|${secretHash(alice)}|${secretHash(bob)}`));
    } finally {
      watched.close();
    }
  });

  test('a file that never existed: no token works, said once at start', () => {
    const { log, lines } = recordingLog();
    const watched = watchTokensFile(join(scratch, 'nowhere'), log);
    try {
      assert.equal(watched.size(), 0);
      assert.equal(watched.find(token()), null);
      assert.equal(lines.length, 1);
      assert.match(lines[0]?.message ?? '', /does not exist: no operator token works/);
    } finally {
      watched.close();
    }
  });

  test('a Kubernetes Secret volume swaps a symlink: the new content is taken within about two seconds at the default poll', async () => {
    // A Secret volume as the kubelet writes it: tokens → ..data/tokens, ..data → a dated directory.
    const volume = join(scratch, 'secret-volume');
    const [alice, bob] = [token(), token()];
    const version = (name: string, content: string) => {
      mkdirSync(join(volume, name), { recursive: true });
      writeFileSync(join(volume, name, 'tokens'), content);
    };
    version('..2026_11_25_first', `alice write ${secretHash(alice)}\n`);
    symlinkSync('..2026_11_25_first', join(volume, '..data'));
    symlinkSync('..data/tokens', join(volume, 'tokens'));
    const watched = watchTokensFile(join(volume, 'tokens'), recordingLog().log);
    try {
      assert.ok(watched.find(alice));
      version('..2026_11_25_second', `bob write ${secretHash(bob)}\n`);
      symlinkSync('..2026_11_25_second', join(volume, '..data_tmp'));
      renameSync(join(volume, '..data_tmp'), join(volume, '..data'));
      rmSync(join(volume, '..2026_11_25_first'), { recursive: true });
      const took = await within(2_500, () => watched.find(alice) === null && watched.find(bob) !== null);
      assert.ok(took <= 2_000, `took ${took} ms`);
    } finally {
      watched.close();
    }
  });
});
