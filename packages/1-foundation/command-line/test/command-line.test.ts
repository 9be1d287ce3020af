// The framework both command lines share: the parser's problems, as typed values each program words;
// the one "did you mean"; the usage line and option table. The programs' own wording is pinned by
// cli/test/usage.test.ts and services/admin/test/admin.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CommandSpec,
  closest,
  optionRows,
  type Program,
  parseCommandLine,
  UsageError,
  type UsageProblem,
  usageLine,
} from '../src/index.ts';

const run = async () => {};
const commands: CommandSpec<unknown>[] = [
  {
    path: ['apps', 'create'],
    summary: 'Create an app',
    args: [{ name: 'kind', choices: ['web', 'cli'] }],
    options: [
      { name: 'name', type: 'string', value: '<name>', required: true, description: 'Its name' },
      { name: 'scope', type: 'string', multiple: true, description: 'A scope', choices: ['a', 'b'] },
    ],
    run,
  },
  { path: ['janitor'], summary: 'Delete', options: [{ name: 'dry-run', type: 'boolean', description: 'Count' }], run },
];

const program = (settings: Partial<Program<unknown>> = {}): Program<unknown> => ({
  commands,
  globalOptions: [
    { name: 'help', short: 'h', type: 'boolean', description: 'Help' },
    { name: 'json', type: 'boolean', description: 'JSON' },
  ],
  answeredOptions: ['help'],
  helpOption: 'help',
  checksRequired: true,
  refusedOptions: ['password'],
  words: (problem) => JSON.stringify(problem),
  ...settings,
});

/** The problem a command line is refused with, and the command words it names. */
function problemOf(argv: string[], settings?: Partial<Program<unknown>>): { problem?: UsageProblem; path: string[] } {
  try {
    parseCommandLine(argv, program(settings));
  } catch (error) {
    assert.ok(error instanceof UsageError);
    assert.equal(error.message, JSON.stringify(error.problem), 'the program words the problem');
    return { ...(error.problem && { problem: error.problem }), path: error.commandPath };
  }
  assert.fail(`${argv.join(' ')} was accepted`);
}

describe('parsing a command line', () => {
  test('the words name the command; global options may stand anywhere; options are read strictly', () => {
    const line = parseCommandLine(
      ['apps', '--json', 'create', 'web', '--name', 'x', '--scope', 'a', '--scope', 'b'],
      program(),
    );
    assert.deepEqual(line.path, ['apps', 'create']);
    assert.deepEqual(line.args, { kind: 'web' });
    assert.deepEqual({ ...line.options }, { json: true, name: 'x', scope: ['a', 'b'] });
  });

  test('each wrong line is a typed problem naming the command words recognised', () => {
    assert.deepEqual(problemOf(['apps', 'crate']), {
      problem: { kind: 'unknown-command', typed: 'apps crate', suggestion: 'apps create' },
      path: ['apps'],
    });
    assert.deepEqual(problemOf(['janitor', '--dry-runn']).problem, {
      kind: 'unknown-option',
      option: '--dry-runn',
      suggestion: 'dry-run',
    });
    assert.deepEqual(problemOf(['janitor', '--dry-run=yes']).problem, {
      kind: 'option-takes-no-value',
      option: '--dry-run',
    });
    assert.deepEqual(problemOf(['apps', 'create', 'web', '--name']).problem, {
      kind: 'option-needs-value',
      option: '--name',
    });
    assert.deepEqual(problemOf(['apps', 'create', '--name', 'x']).problem, {
      kind: 'missing-argument',
      argument: 'kind',
    });
    assert.deepEqual(problemOf(['apps', 'create', 'tv', '--name', 'x']).problem, {
      kind: 'argument-not-a-choice',
      argument: 'kind',
      value: 'tv',
      choices: ['web', 'cli'],
    });
    assert.deepEqual(problemOf(['janitor', 'now']).problem, { kind: 'unexpected-argument', value: 'now' });
    assert.deepEqual(problemOf(['apps', 'create', 'web']).problem, { kind: 'missing-option', option: 'name' });
    assert.deepEqual(problemOf(['apps', 'create', 'web', '--name', 'x', '--scope', 'c']).problem, {
      kind: 'option-not-a-choice',
      option: 'scope',
      value: 'c',
      choices: ['a', 'b'],
    });
    assert.deepEqual(problemOf(['janitor', '--password=hunter2']).problem, {
      kind: 'refused-option',
      option: 'password',
    });
  });

  test('help is answered before anything else is checked', () => {
    assert.deepEqual(parseCommandLine(['apps', 'crate', '--help'], program()).path, ['apps']);
    assert.deepEqual(parseCommandLine(['apps', 'create', '-h'], program()).args, {});
  });

  test("a program that checks its own required options, and trims its arguments (the admin's)", () => {
    const admin = { checksRequired: false, trimsArguments: true };
    assert.deepEqual(parseCommandLine(['apps', 'create', ' web '], program(admin)).args, { kind: 'web' });
    assert.deepEqual(problemOf(['apps', 'create', '  '], admin).problem, {
      kind: 'missing-argument',
      argument: 'kind',
    });
  });
});

describe('did you mean', () => {
  test('the closest within a third of the length (at least two edits), in any case; else none', () => {
    assert.equal(closest('janitr', ['janitor', 'audit']), 'janitor');
    assert.equal(closest('SUSPEND-ACOUNT', ['suspend-account', 'suspend-app']), 'suspend-account');
    assert.equal(closest('frobnicate', ['janitor', 'audit']), undefined);
  });
});

describe('help parts', () => {
  test('a usage line shows required options bare, the others in brackets, repeatable ones with "..."', () => {
    assert.equal(
      usageLine('devplat', commands[0] as CommandSpec<unknown>),
      'devplat apps create <kind> --name <name> [--scope <value>]...',
    );
  });

  test('an option table in aligned columns says what is repeatable or required', () => {
    assert.deepEqual(optionRows(commands[0]?.options ?? []), [
      '--name <name>    Its name (required)',
      '--scope <value>  A scope (repeatable)',
    ]);
  });
});
