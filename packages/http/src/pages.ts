// Errors of HTML pages (the player client, the console's web UI): a refusal shows its detail, a
// failure shows a reference and is logged; nothing internal reaches the browser.
import type { Context, Middleware } from 'koa';
import { isDependencyFailure } from './errors.ts';
import { newRequestId } from './headers.ts';
import type { Logger } from './logger.ts';
import { ProblemError } from './problem.ts';

/** Renders one page; `problem` is the refusal being shown, when there is one. */
export type ShowPage = (ctx: Context, status: number, title: string, message: string, problem?: ProblemError) => void;

export function pageErrors(logger: Logger, show: ShowPage): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && !ctx.body) show(ctx, 404, 'Not found', 'There is no page here.');
    } catch (error) {
      if (error instanceof ProblemError && (error.status < 500 || error.code === 'FEATURE_DISABLED')) {
        show(ctx, error.status, 'That did not work', error.detail, error);
        return;
      }
      const requestId = (ctx.state.requestId as string | undefined) ?? newRequestId();
      logger.error(
        { request_id: requestId, err: { name: (error as Error)?.name, message: (error as Error)?.message } },
        'page error',
      );
      const unavailable = isDependencyFailure(error);
      show(
        ctx,
        unavailable ? 503 : 500,
        'Something went wrong',
        `${unavailable ? 'The service is temporarily unavailable. Try again shortly.' : 'An internal error occurred.'} Reference: ${requestId}.`,
      );
    }
  };
}
