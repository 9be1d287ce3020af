// One handler shape for the admin API's accounts, apps and players: the operator names a row in
// the path (an e-mail, a client id, a username); GET shows it, and POST <path>/<verb> changes it,
// answering `{ <noun>: the row as shown after the change, changed }`. The reason is read before the
// row is looked up, so a bad reason is refused before an unknown name is.
import type { Context } from 'koa';
import { readReason } from './request.ts';
import { type AdminRoutes, answer } from './routes.ts';

/** A verb's change to the row the operator named: whether anything changed, and the row as shown now. */
export type RowChange<Row> = (
  ctx: Context,
  found: Row,
  reason: string | null,
) => Promise<{ changed: boolean; shown: unknown }>;

export interface NamedRows<Row> {
  /** The row the path names (a Refusal, 404, when there is none). */
  find(ctx: Context): Promise<Row>;
  /** GET's answer. */
  show(ctx: Context): Promise<unknown>;
  /** Each verb (the last segment of its path) and its change, in the order they are registered. */
  changes: Record<string, RowChange<Row>>;
}

/**
 * GET `path` (its name a parameter: '/accounts/:email') and POST `path`/<verb> for each change, whose
 * answer calls the row `noun`: `{ account: …, changed }`.
 */
export function namedRowRoutes<Row>({ guarded }: AdminRoutes, path: string, noun: string, rows: NamedRows<Row>): void {
  guarded(path, {
    GET: async (ctx) => answer(ctx, 200, await rows.show(ctx)),
  });
  for (const [verb, change] of Object.entries(rows.changes)) {
    guarded(`${path}/${verb}`, {
      POST: async (ctx) => {
        const reason = readReason(ctx);
        const { changed, shown } = await change(ctx, await rows.find(ctx), reason);
        answer(ctx, 200, { [noun]: shown, changed });
      },
    });
  }
}

/**
 * The row as shown after a change that tells only whether it changed: read again when it did, so
 * the answer shows what the change wrote.
 */
export async function shownAfter<Row>(
  changed: boolean,
  found: Row,
  reread: () => Promise<Row>,
  show: (row: Row) => Promise<unknown>,
): Promise<{ changed: boolean; shown: unknown }> {
  return { changed, shown: await show(changed ? await reread() : found) };
}
