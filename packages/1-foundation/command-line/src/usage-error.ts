// A command line that cannot run, on either command line: what was wrong, as a typed value the
// program words in its own voice, and the command whose usage to print. Each program ends with its
// own exit code for it (the CLI's 2, the admin's 64, sysexits' EX_USAGE).

export type UsageProblem =
  | { kind: 'unknown-command'; typed: string; suggestion?: string }
  | { kind: 'unknown-option'; option: string; suggestion?: string }
  | { kind: 'option-takes-no-value'; option: string }
  | { kind: 'option-needs-value'; option: string }
  | { kind: 'unreadable'; message: string }
  | { kind: 'missing-argument'; argument: string }
  | { kind: 'argument-not-a-choice'; argument: string; value: string; choices: readonly string[] }
  | { kind: 'unexpected-argument'; value: string }
  | { kind: 'missing-option'; option: string }
  | { kind: 'option-not-a-choice'; option: string; value: string; choices: readonly string[] }
  | { kind: 'refused-option'; option: string };

export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The words of the command whose usage to print, when one was recognised. */
  readonly commandPath: string[];
  /** What the parser found wrong; none for a command's own refusal of its input. */
  readonly problem: UsageProblem | undefined;
  constructor(detail: string, commandPath: string[] = [], problem?: UsageProblem) {
    super(detail);
    this.commandPath = commandPath;
    this.problem = problem;
  }
}
