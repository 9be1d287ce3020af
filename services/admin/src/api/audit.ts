// The admin API's audit log, read: a page of records newest first (GET /audit), or every record of
// a time range oldest first as JSON Lines (GET /audit/export), both through the audit room
// (@devplat/domain/audit), with the admin command's filters. Reading records nothing.
//
// The export streams: the records are read 1000 a statement and written as they come, never held
// whole. Its first batch is read before the answer starts, so a refused filter is still a Problem;
// a failure after that cuts the connection (the body then lacks its last line break, which a
// reader sees) and is logged, as no status can be sent any more.
import { Readable } from 'node:stream';
import type { AuditRecord } from '@devplat/db';
import { type AuditFilter, auditJsonLine, exportAudit, queryAudit } from '@devplat/domain/audit';
import { Refusal, refuse } from '@devplat/domain/refusal';
import { auditFilterOf } from '@devplat/domain/workflows';
import type { Context } from 'koa';
import { pageOf, queryText } from './request.ts';
import { type AdminRoutes, answer } from './routes.ts';

const filters = ['actor', 'action', 'target', 'since', 'until'] as const;

function filterOf(prisma: AdminRoutes['prisma'], ctx: Context): Promise<AuditFilter> {
  const given = Object.fromEntries(filters.map((name) => [name, queryText(ctx, name)]));
  return auditFilterOf(prisma, given, (message) => new Refusal('INVALID_INPUT', `${message}.`));
}

/** One record as the page shows it: as a line of the export. */
const recordView = (record: AuditRecord) => JSON.parse(auditJsonLine(record)) as unknown;

export function auditRoutes({ prisma, logger, guarded }: AdminRoutes): void {
  guarded('/audit', {
    GET: async (ctx) => {
      const filter = await filterOf(prisma, ctx);
      const { items, nextCursor } = await queryAudit(prisma, { ...filter, ...pageOf(ctx) });
      answer(ctx, 200, { data: items.map(recordView), next_cursor: nextCursor });
    },
  });

  guarded('/audit/export', {
    GET: async (ctx) => {
      const filter = await filterOf(prisma, ctx);
      const { since, until } = filter;
      // The document requires both (its x-refusal says so); this narrows the types.
      if (since === undefined || until === undefined) {
        refuse('INVALID_INPUT', 'An export is of a time range: give both since and until.');
      }
      const batches = exportAudit(prisma, { ...filter, since, until });
      // The first batch before the answer starts: a refused filter is a Problem still.
      const first = await batches.next();
      async function* lines() {
        if (first.done) return;
        yield first.value.map(auditJsonLine).join('');
        for await (const batch of batches) yield batch.map(auditJsonLine).join('');
      }
      const body = Readable.from(lines(), { objectMode: false });
      const requestId = ctx.state.requestId;
      body.once('error', (error) =>
        logger.error({ err: error, request_id: requestId }, 'admin API: audit export cut short'),
      );
      ctx.status = 200;
      ctx.type = 'application/x-ndjson; charset=utf-8';
      ctx.body = body;
    },
  });
}
