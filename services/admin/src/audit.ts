// admin audit: the audit log, read. A page of records newest first as a table (time, actor, action,
// target, details) with the cursor of the next page; or, with --jsonl, every record of a time
// range oldest first as JSON Lines on stdout, read in batches (the log is never held whole), with
// progress on stderr so stdout can go straight to a file.
import type { AuditRecord, PrismaClient } from '@devplat/db';
import { emailsOfAccounts } from '@devplat/domain/accounts';
import { type AuditFilter, auditJsonLine, auditTargetTypes, exportAudit, queryAudit } from '@devplat/domain/audit';
import { auditFilterOf } from '@devplat/domain/workflows';
import { type Command, type Invocation, type Io, stringOption, usageError } from './command.ts';
import { adminConfig, withDatabase } from './connections.ts';
import { pageOf, pageOptions, printPage, text, time } from './listing.ts';

/** How much of a record's details the table shows; --jsonl gives them whole. */
const detailsWidth = 100;
/** A progress line on stderr every so many records exported. */
const progressEvery = 10_000;

function filterOf(prisma: PrismaClient, invocation: Invocation): Promise<AuditFilter> {
  const given = Object.fromEntries(
    (['actor', 'action', 'target', 'since', 'until'] as const).map((name) => [name, text(invocation, name)]),
  );
  return auditFilterOf(prisma, given, (message) => usageError(`--${message}`));
}

/** operator:<name>, or account:<e-mail> (its id when the account is gone). */
function actorCell({ actorType, actorId }: AuditRecord, emails: Map<string, string>): string {
  const email = actorType === 'account' && actorId ? emails.get(actorId) : undefined;
  return `${actorType}:${email ?? actorId ?? '-'}`;
}

function detailsCell(details: AuditRecord['details']): string {
  const json = JSON.stringify(details);
  if (json === '{}') return '';
  return json.length > detailsWidth ? `${json.slice(0, detailsWidth - 1)}…` : json;
}

async function printRecords(prisma: PrismaClient, io: Io, invocation: Invocation, filter: AuditFilter) {
  const { items, nextCursor } = await queryAudit(prisma, { ...filter, ...pageOf(invocation) });
  // An account is shown by its e-mail, which --actor and --target take back.
  const emails = await emailsOfAccounts(
    prisma,
    items.filter((record) => record.actorType === 'account').map((record) => record.actorId ?? ''),
  );
  const rows = items.map((record) => [
    time(record.createdAt),
    actorCell(record, emails),
    record.action,
    `${record.targetType}:${record.targetId}`,
    detailsCell(record.details),
  ]);
  printPage(
    io,
    { headings: ['TIME', 'ACTOR', 'ACTION', 'TARGET', 'DETAILS'], rows, none: 'no audit records match' },
    nextCursor,
  );
}

async function writeJsonLines(prisma: PrismaClient, io: Io, filter: AuditFilter & { since: string; until: string }) {
  let written = 0;
  let reported = 0;
  for await (const batch of exportAudit(prisma, filter)) {
    io.out(batch.map(auditJsonLine).join(''));
    written += batch.length;
    if (written - reported >= progressEvery) {
      io.note(`audit: ${written} records so far`);
      reported = written;
    }
  }
  io.note(`audit: ${written} record${written === 1 ? '' : 's'} from ${filter.since} until ${filter.until}`);
}

export const auditCommand: Command = {
  path: ['audit'],
  summary: 'Read the audit log: who did what, newest first, or a time range as JSON Lines',
  description: [
    `Prints the audit records that match every filter given, newest first, a page at a time, as a
table (time in UTC, actor, action, target, details) followed by the line "next page: --cursor <C>"
(run the same command again with it) or "last page". An account is shown by its e-mail.
  --actor   an operator by the name they gave (--operator), or a developer account by id or e-mail
  --action  one action (account.suspend), or every action a prefix ending with a dot begins (app.)
  --target  <type> or <type>:<id>, the type one of
              ${auditTargetTypes.join(', ')}
            (a player's records say sandbox_player). An account may be named by e-mail, an app by
            client id (svc_...), a player by username.
  --since, --until  ISO 8601 with a zone (2025-01-31T12:00:00Z, +01:00) or a date (midnight UTC);
            since is inclusive and until exclusive, so consecutive ranges neither overlap nor miss.
With --jsonl, every matching record of the range from --since until --until (both required) is
written to stdout oldest first, one JSON object a line (id, created_at, actor_type, actor_id,
action, target_type, target_id, details, request_id), read in batches of 1000: e.g.
  npm run -s admin -- audit --jsonl --since 2025-01-01 --until 2025-02-01 > audit-2025-01.jsonl
Only the records go to stdout; the count goes to stderr. Export a range that has ended, and the
same command gives the same file. Reading writes no audit record.
Exit 64 on a malformed option, 65 when a filter is refused (an unknown target type, a time that is
not ISO 8601, a limit out of range, a cursor this listing did not give) or names no account, app
or player, 69 when PostgreSQL does not answer.`,
  ],
  args: [],
  options: [
    stringOption('actor', '<name or account>', "An operator's name, or an account's id or e-mail"),
    stringOption('action', '<action or prefix.>', 'An action, or a prefix ending with a dot'),
    stringOption('target', '<type>[:<id>]', 'A target type, and one target of it'),
    stringOption('since', '<ISO time>', 'From this time (inclusive)'),
    stringOption('until', '<ISO time>', 'Until this time (exclusive)'),
    ...pageOptions,
    {
      name: 'jsonl',
      type: 'boolean',
      description: 'Every record from --since until --until, oldest first, as JSON Lines',
    },
  ],
  async run(invocation) {
    const jsonl = invocation.options.jsonl === true;
    const since = text(invocation, 'since');
    const until = text(invocation, 'until');
    if (jsonl) {
      if (since === undefined || until === undefined) {
        throw usageError('--jsonl exports a time range: give both --since and --until');
      }
      if (invocation.options.limit !== undefined || invocation.options.cursor !== undefined) {
        throw usageError('--jsonl writes the whole range: --limit and --cursor are for pages');
      }
    }
    await withDatabase(adminConfig(invocation.env), async (prisma) => {
      const filter = await filterOf(prisma, invocation);
      if (jsonl)
        await writeJsonLines(prisma, invocation.io, { ...filter, since: since as string, until: until as string });
      else await printRecords(prisma, invocation.io, invocation, filter);
    });
  },
};
