// The ways a command can end other than success. Each carries its exit code and a Problem-shaped
// body, so --json prints the same kind of object on stderr whether the console refused or the CLI
// itself could not go on. A command line that cannot run is the UsageError both command lines share
// (@devplat/command-line): exit 2, its Problem made by usageProblem.

export const exitCodes = { ok: 0, failure: 1, usage: 2, notSignedIn: 3, interrupted: 130 } as const;

/** application/problem+json as the console sends it; the CLI's own refusals fill the same members. */
export interface Problem {
  type: string;
  title: string;
  status?: number;
  detail: string;
  instance?: string;
  code: string;
  request_id?: string;
}

/** A CLI-made Problem: no HTTP status, no instance, no request id. */
export function localProblem(code: string, title: string, detail: string): Problem {
  const slug = code.toLowerCase().replaceAll('_', '-');
  return { type: `urn:developer-platform:cli:${slug}`, title, detail, code };
}

/** The Problem of a usage error: code USAGE_ERROR. */
export const usageProblem = (detail: string): Problem => localProblem('USAGE_ERROR', 'Usage error', detail);

export class CliError extends Error {
  readonly exitCode: number;
  readonly problem: Problem;
  /** Further lines for a person: what to do next. Never printed with --json. */
  readonly hints: string[];
  constructor(exitCode: number, problem: Problem, hints: string[] = []) {
    super(problem.detail);
    this.exitCode = exitCode;
    this.problem = problem;
    this.hints = hints;
  }
}

/** No session for the console, or the console no longer accepts it (exit 3). */
export class NotSignedInError extends CliError {
  constructor(problem: Problem, hints: string[]) {
    super(exitCodes.notSignedIn, problem, hints);
  }
}

/** Anything else that stopped the command: a refusal, an unreachable service, a failed step (exit 1). */
export class FailureError extends CliError {
  constructor(problem: Problem, hints: string[] = []) {
    super(exitCodes.failure, problem, hints);
  }
}

export const failure = (code: string, title: string, detail: string, hints: string[] = []) =>
  new FailureError(localProblem(code, title, detail), hints);
