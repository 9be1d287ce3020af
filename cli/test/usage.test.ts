// What devplat says before it ever needs a server: help, version, usage errors (exit 2), the
// refusal of secrets on the command line, not being signed in (exit 3), an unreachable console,
// completion scripts, and the hidden password prompt at a real terminal.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { freePort } from '@devplat/test/process';
import { cliEnv, mainPath, runCli, scratchDir } from './cli.ts';

const everyCommand = [
  'register',
  'login',
  'logout',
  'whoami',
  'apps list',
  'apps create',
  'apps show',
  'apps edit',
  'apps disable',
  'apps enable',
  'apps delete',
  'secrets rotate',
  'secrets revoke',
  'players list',
  'players create',
  'players disable',
  'players enable',
  'webhooks test',
  'deliveries list',
  'deliveries replay',
  'try',
  'completion',
  'help',
];

/** A usage error: exit 2, nothing on stdout, the message and then the command's usage on stderr. */
function assertUsageError(result: { code: number | null; stdout: string; stderr: string }, message: RegExp) {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^Error: /);
  assert.match(result.stderr, message);
}

describe('help', () => {
  test('devplat alone, --help and help all print the overview with every command, exit 0', async () => {
    const bare = await runCli([]);
    assert.equal(bare.code, 0);
    for (const command of everyCommand) assert.match(bare.stdout, new RegExp(`^  ${command}\\b`, 'm'), command);
    assert.match(bare.stdout, /EXIT CODES/);
    assert.equal((await runCli(['--help'])).stdout, bare.stdout);
    assert.equal((await runCli(['help'])).stdout, bare.stdout);
  });

  test('a command explains its usage, options and examples with -h, --help or help <command>', async () => {
    const viaFlag = await runCli(['apps', 'create', '-h']);
    assert.equal(viaFlag.code, 0);
    assert.match(
      viaFlag.stdout,
      /devplat apps create --name <name> \[--redirect-uri <uri>\]\.\.\. \[--scope <scope>\]\.\.\./,
    );
    assert.match(viaFlag.stdout, /--webhook-url <url>/);
    assert.match(viaFlag.stdout, /EXAMPLES/);
    assert.equal((await runCli(['apps', 'create', '--help'])).stdout, viaFlag.stdout);
    assert.equal((await runCli(['help', 'apps', 'create'])).stdout, viaFlag.stdout);
  });

  test('a group lists its commands', async () => {
    const result = await runCli(['secrets']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /secrets rotate <client_id>/);
    assert.match(result.stdout, /secrets revoke <client_id> <secret_id>/);
    assert.doesNotMatch(result.stdout, /apps create/);
  });

  test('the help of commands that take secrets says they are never arguments', async () => {
    for (const command of [['login'], ['register'], ['players', 'create'], ['try']]) {
      const result = await runCli([...command, '--help']);
      assert.match(result.stdout.replace(/\s+/g, ' '), /never taken as an argument/, command.join(' '));
    }
  });

  test('--version prints the version', async () => {
    const result = await runCli(['--version']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^devplat \d+\.\d+\.\d+\n$/);
  });
});

describe('usage errors exit 2 and print the usage of the command', () => {
  test('an unknown command, with a suggestion', async () => {
    const result = await runCli(['apps', 'lst']);
    assertUsageError(result, /Unknown command "apps lst"\. Did you mean "devplat apps list"\?/);
    assert.match(result.stderr, /apps create/);
  });

  test('an unknown option, with a suggestion', async () => {
    const result = await runCli(['apps', 'create', '--nam', 'x']);
    assertUsageError(result, /Unknown option --nam for devplat apps create\. Did you mean --name\?/);
    assert.match(result.stderr, /USAGE\n {2}devplat apps create --name <name>/);
  });

  test('a missing required option, a missing argument, an extra argument', async () => {
    assertUsageError(await runCli(['apps', 'create']), /Missing required option --name\./);
    assertUsageError(
      await runCli(['apps', 'show']),
      /Missing argument <client_id>\.[\s\S]*devplat apps show <client_id>/,
    );
    assertUsageError(await runCli(['secrets', 'revoke', 'svc_x']), /Missing argument <secret_id>\./);
    assertUsageError(await runCli(['whoami', 'extra']), /Unexpected argument "extra"\./);
    assertUsageError(await runCli(['completion']), /Missing argument <shell>\./);
  });

  test('an option without its value, and values outside the allowed set', async () => {
    assertUsageError(await runCli(['login', '--email']), /Option --email needs a value\./);
    assertUsageError(
      await runCli(['deliveries', 'list', 'svc_x', '--status', 'lost']),
      /--status must be one of failed, pending, succeeded \(got "lost"\)/,
    );
    assertUsageError(await runCli(['completion', 'fish']), /<shell> must be one of bash, zsh/);
    assertUsageError(await runCli(['apps', 'create', '--name', 'x', '--scope', 'admin']), /--scope must be one of/);
    assertUsageError(await runCli(['whoami', '--console-url', 'not a url']), /--console-url must be a URL/);
    assertUsageError(
      await runCli(['whoami', '--console-url', 'http://console.example.test']),
      /--console-url must use https unless the console is on this machine/,
    );
  });

  test('with --json, the error is one Problem JSON on stderr and stdout stays empty', async () => {
    const result = await runCli(['apps', 'show', '--json']);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    const problem = JSON.parse(result.stderr);
    assert.equal(problem.code, 'USAGE_ERROR');
    assert.equal(problem.detail, 'Missing argument <client_id>.');
    assert.match(problem.type, /^urn:/);
  });

  test('a password or client secret given as an argument is refused and never echoed', async () => {
    const password = await runCli(['login', '--email', 'a@example.test', '--password', 'hunter2-secret']);
    assertUsageError(password, /never takes a password as an argument.*--password-stdin or DEVPLAT_PASSWORD/);
    assert.doesNotMatch(password.stderr, /hunter2-secret/);
    const secret = await runCli(['try', 'svc_x', '--client-secret=svs_abc']);
    assertUsageError(secret, /never takes a client secret as an argument.*--client-secret-stdin/);
    assert.doesNotMatch(secret.stderr, /svs_abc/);
  });

  test('no password anywhere and no terminal to ask at: a usage error naming the ways to give one', async () => {
    const env = { DEVPLAT_CONFIG_DIR: scratchDir('none') };
    assertUsageError(
      await runCli(['login', '--email', 'a@example.test'], { env }),
      /A password is needed: pipe it with --password-stdin, set DEVPLAT_PASSWORD, or run in a terminal/,
    );
    assertUsageError(
      await runCli(['login', '--email', 'a@example.test', '--password-stdin'], { env, input: '' }),
      /--password-stdin was given but the first line of stdin is empty/,
    );
  });
});

describe('not signed in (exit 3)', () => {
  test('a command that needs a session says how to sign in', async () => {
    const result = await runCli(['apps', 'list'], {
      env: { DEVPLAT_CONFIG_DIR: scratchDir('empty'), DEVPLAT_CONSOLE_URL: 'http://127.0.0.1:8082' },
    });
    assert.equal(result.code, 3);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /You are not signed in to the console at http:\/\/127\.0\.0\.1:8082\./);
    assert.match(result.stderr, /devplat login --email/);
    const json = await runCli(['whoami', '--json'], { env: { DEVPLAT_CONFIG_DIR: scratchDir('empty') } });
    assert.equal(json.code, 3);
    assert.equal(JSON.parse(json.stderr).code, 'NOT_SIGNED_IN');
  });

  test('a stored session past its expiry counts as signed out', async () => {
    const configDir = scratchDir('expired');
    writeFileSync(
      join(configDir, 'credentials.json'),
      JSON.stringify({
        sessions: {
          'http://127.0.0.3:8082': {
            token: 'dps_x',
            email: 'ada@example.test',
            expires_at: '2020-01-01T00:00:00.000Z',
          },
        },
      }),
    );
    const result = await runCli(['whoami'], { env: { DEVPLAT_CONFIG_DIR: configDir } });
    assert.equal(result.code, 3);
    assert.match(result.stderr, /session at http:\/\/127\.0\.0\.3:8082 ended at 2020-01-01/);
    assert.match(result.stderr, /devplat login --email ada@example\.test/);
  });
});

test('an unreachable console is one line that says what to check, exit 1', async () => {
  const consoleUrl = `http://127.0.0.1:${await freePort()}`;
  const result = await runCli(['register', '--email', 'a@example.test', '--display-name', 'A', '--password-stdin'], {
    env: { DEVPLAT_CONSOLE_URL: consoleUrl },
    input: 'a-long-password\n',
  });
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    `Error: Cannot reach the console at ${consoleUrl} (connection refused): is \`npm start\` running? ` +
      '(Elsewhere: --console-url or DEVPLAT_CONSOLE_URL.)\n',
  );
  const json = await runCli(['--json', 'register', '--email', 'a@example.test', '--display-name', 'A'], {
    env: { DEVPLAT_CONSOLE_URL: consoleUrl, DEVPLAT_PASSWORD: 'a-long-password' },
  });
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stderr).code, 'CONSOLE_UNREACHABLE');
});

describe('completion', () => {
  /** What bash completes for these words (the last one being typed), with the script devplat prints. */
  function complete(words: string[]): string[] {
    const script = [
      `source <("${process.execPath}" "${mainPath}" completion bash)`,
      `COMP_WORDS=(devplat ${words.map((word) => `'${word}'`).join(' ')})`,
      `COMP_CWORD=${words.length}`,
      '_devplat',
      `printf "%s\\n" "\${COMPREPLY[@]}"`,
    ].join('\n');
    const result = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: cliEnv() });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.split('\n').filter(Boolean).sort();
  }

  test('bash completes commands, subcommands, options and fixed values', () => {
    assert.deepEqual(complete(['w']), ['webhooks', 'whoami']);
    assert.deepEqual(complete(['apps', 'cr']), ['create']);
    assert.deepEqual(complete(['apps', 'create', '--sc']), ['--scope']);
    assert.deepEqual(complete(['apps', 'create', '--name', 'x', '--scope', '']), [
      'city.public.read',
      'profile.basic.read',
    ]);
    assert.deepEqual(complete(['deliveries', 'list', 'svc_x', '--status', '']), ['failed', 'pending', 'succeeded']);
    assert.deepEqual(complete(['try', 'svc_x', '--show']), ['--show-tokens']);
    assert.deepEqual(complete(['completion', '']), [
      '--api-key-stdin',
      '--console-url',
      '--help',
      '--json',
      'bash',
      'zsh',
    ]);
  });

  test('the zsh script registers the function and covers every command and option', async () => {
    const result = await runCli(['completion', 'zsh']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^#compdef devplat\n/);
    assert.match(result.stdout, /compdef _devplat devplat/);
    for (const command of everyCommand) {
      const words = command.split(' ');
      assert.ok(result.stdout.includes(`"${words.slice(0, -1).join(' ')}|${words.at(-1)}")`), command);
    }
    for (const option of ['--redirect-uri', '--password-stdin', '--client-secret-stdin', '--timeout', '--status']) {
      assert.ok(result.stdout.includes(`'${option}:`), option);
    }
  });

  test('zsh accepts the zsh script', { skip: !hasCommand('zsh') && 'no zsh here' }, async () => {
    const result = spawnSync('zsh', ['-n'], { input: (await runCli(['completion', 'zsh'])).stdout, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
  });
});

test('at a terminal, the password is asked twice without echo', {
  skip: !hasCommand('script') && 'no script(1)',
}, async () => {
  const consoleUrl = `http://127.0.0.1:${await freePort()}`;
  const command = `"${process.execPath}" "${mainPath}" register --email ada@example.test --display-name Ada`;
  // script(1) gives devplat a real terminal; what it prints is what the person would see.
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: cliEnv({ DEVPLAT_CONSOLE_URL: consoleUrl }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (chunk) => {
    screen += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const waitFor = async (text: string) => {
    const deadline = Date.now() + 10_000;
    while (!screen.includes(text)) {
      if (Date.now() > deadline) throw new Error(`no "${text}" on the terminal:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  await waitFor('Choose a password: ');
  child.stdin.write('typed-secret-1\r');
  await waitFor('Repeat the password: ');
  child.stdin.write('typed-secret-1\r');
  assert.equal(await exited, 1);
  child.stdin.end();
  assert.doesNotMatch(screen, /typed-secret-1/);
  assert.match(screen, /Cannot reach the console/);
});

function hasCommand(name: string): boolean {
  return spawnSync(name, ['--version']).status === 0;
}
