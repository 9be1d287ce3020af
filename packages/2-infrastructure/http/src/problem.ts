// Problem Details (application/problem+json) exactly as the contract shapes them: seven members,
// no others. Handlers throw ProblemError; the error middleware renders it.
import { type ProblemCode, problemCodes, problemType } from '@devplat/contract';
import type { Context } from 'koa';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ProblemCode;
  request_id: string;
}

/** A refusal with a contract code; `headers` are sent with it (Allow, WWW-Authenticate, ...). */
export class ProblemError extends Error {
  readonly code: ProblemCode;
  readonly detail: string;
  readonly headers: Record<string, string>;
  constructor(code: ProblemCode, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.name = 'ProblemError';
    this.code = code;
    this.detail = detail;
    this.headers = headers;
  }
  get status(): number {
    return problemCodes[this.code].status;
  }
}

export function buildProblem(code: ProblemCode, detail: string, instance: string, requestId: string): Problem {
  const { status, title } = problemCodes[code];
  return { type: problemType(code), title, status, detail, instance, code, request_id: requestId };
}

export const problemContentType = 'application/problem+json';

export function sendProblem(ctx: Context, error: ProblemError): void {
  ctx.status = error.status;
  ctx.state.errorCode = error.code;
  ctx.set(error.headers);
  ctx.type = problemContentType;
  ctx.body = JSON.stringify(buildProblem(error.code, error.detail, ctx.path, ctx.state.requestId));
}
