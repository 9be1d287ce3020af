// The CLI's one table for the console API's refusals: per Problem code, the exit code and the advice
// printed under the console's detail. A code the table does not name ends with exit 1 and no advice.
import type { ProblemCode } from '@devplat/contract';
import { type CliError, exitCodes, FailureError, NotSignedInError, type Problem } from './errors.ts';

interface ConsoleRefusalAnswer {
  exitCode: number;
  hint?: string;
}

const consoleRefusals: Partial<Record<ProblemCode, ConsoleRefusalAnswer>> = {
  // The session or API key presented is not accepted: sign in again, or make a new key (the hints say which).
  NOT_SIGNED_IN: { exitCode: exitCodes.notSignedIn },
  GUEST_ACCOUNT: {
    exitCode: exitCodes.failure,
    hint: 'The console is for full accounts: register one with devplat register.',
  },
  INSUFFICIENT_SCOPE: {
    exitCode: exitCodes.failure,
    hint:
      'This API key may only read. For changes, use a key with the write scope ' +
      '(devplat keys create --name <name> --scope write, signed in), or your signed-in session.',
  },
  SESSION_REQUIRED: {
    exitCode: exitCodes.failure,
    hint: 'API keys cannot manage API keys or sign out: sign in with devplat login and run it without an API key.',
  },
  API_KEY_LIMIT: {
    exitCode: exitCodes.failure,
    hint: 'Revoke a key you no longer use first: devplat keys list, then devplat keys revoke <id>.',
  },
  SECRET_LIMIT: {
    exitCode: exitCodes.failure,
    hint:
      'An app holds at most two active secrets: revoke the one your app no longer uses with ' +
      'devplat secrets revoke <client_id> <secret_id> (devplat apps show <client_id> lists them).',
  },
  NO_WEBHOOK_URL: {
    exitCode: exitCodes.failure,
    hint:
      'Give the app a webhook URL first (devplat apps set-webhook <client_id> --url <https url>), or receive ' +
      'its events on this machine with devplat listen <client_id> --forward-to <local url>.',
  },
  DELIVERY_NOT_FAILED: {
    exitCode: exitCodes.failure,
    hint: 'Only failed deliveries can be replayed: devplat deliveries list <client_id> --status failed',
  },
  FEATURE_DISABLED: {
    exitCode: exitCodes.failure,
    hint: 'The console is switched off in production and while the platform is off (DEVELOPER_PLATFORM_ENABLED).',
  },
};

export interface RefusalContext {
  /** A session token or API key was presented: only then does NOT_SIGNED_IN mean "sign in again". */
  signedIn: boolean;
  /** Said when the console no longer accepts the session or the API key. */
  signInAgain: string[];
  /** Advice naming this call's values, in place of the table's for the same code. */
  hints: Record<string, string>;
}

/** The CliError a refusal of the console API ends the command with. */
export function consoleRefusal(problem: Problem, { signedIn, signInAgain, hints }: RefusalContext): CliError {
  const answer = consoleRefusals[problem.code as ProblemCode];
  if (answer?.exitCode === exitCodes.notSignedIn && signedIn) return new NotSignedInError(problem, signInAgain);
  const lines: string[] = [];
  const hint = hints[problem.code] ?? answer?.hint;
  if (hint) lines.push(hint);
  if ((problem.status ?? 0) >= 500 && problem.request_id) {
    lines.push(`If this persists, report it with the request id ${problem.request_id}.`);
  }
  return new FailureError(problem, lines);
}
