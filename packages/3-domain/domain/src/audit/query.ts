// Reading the audit log: a page of records newest first (the operator's listing), and every record
// of a range oldest first, in batches, as JSON Lines (the export). Both take the same filters, and
// refuse a filter they cannot honour (INVALID_INPUT) rather than answer for another one.
import type { AuditRecord } from '@devplat/db';
import type { Db } from '../db.ts';
import { type Page, type Position, page, searchText, timeRange } from '../paging.ts';
import { Refusal } from '../refusal.ts';
import { type AuditSelection, auditRecords } from './store.ts';

export type AuditActorType = 'account' | 'operator';

/** Who acted: an account by its id, or an operator by the name they gave. */
export interface AuditActor {
  type: AuditActorType;
  id: string;
}

/** The target types a filter names; a player's records are stored as sandbox_player. */
export const auditTargetTypes = [
  'app',
  'account',
  'player',
  'consent',
  'client_secret',
  'webhook_delivery',
  'outbox_event',
] as const;

const storedTargetTypes: Record<string, string> = {
  ...Object.fromEntries(auditTargetTypes.map((type) => [type, type])),
  player: 'sandbox_player',
  // As the records and the export spell it.
  sandbox_player: 'sandbox_player',
};

export interface AuditFilter {
  /** Records by any of these actors. */
  actors?: readonly AuditActor[];
  /** One action exactly ("app.create"), or every action it begins when it ends with a dot ("app."). */
  action?: string;
  /** A target type (auditTargetTypes), and one target's id if given. */
  target?: { type: string; id?: string };
  /** From this instant (inclusive): ISO 8601 with a zone, or a date (midnight UTC). */
  since?: string | Date;
  /** Up to this instant (exclusive), so consecutive ranges neither overlap nor leave a gap. */
  until?: string | Date;
}

export interface AuditQuery extends AuditFilter {
  /** Records per page: 1 to 200, default 50. */
  limit?: number;
  /** The nextCursor of the page before. */
  cursor?: string;
}

function selectionOf({ actors, action, target, since, until }: AuditFilter): AuditSelection {
  const selection: AuditSelection = {};
  if (actors) {
    selection.actors = actors.map(({ type, id }) => {
      if (type !== 'account' && type !== 'operator') {
        throw new Refusal('INVALID_INPUT', `an actor is an account or an operator (got "${type}")`);
      }
      return { type, id: searchText('actor', id) };
    });
  }
  if (action !== undefined) {
    const text = searchText('action', action, 100);
    selection.action = text.endsWith('.') ? { startsWith: text } : { is: text };
  }
  if (target) {
    const type = storedTargetTypes[target.type.trim()];
    if (!type) {
      throw new Refusal('INVALID_INPUT', `unknown target type "${target.type}": one of ${auditTargetTypes.join(', ')}`);
    }
    selection.target = { type, ...(target.id !== undefined && { id: searchText('target id', target.id) }) };
  }
  const createdAt = timeRange({ since: 'since', until: 'until' }, since, until);
  if (createdAt) selection.createdAt = createdAt;
  return selection;
}

/** One page of the selected records, newest first. */
export async function queryAudit(db: Db, query: AuditQuery): Promise<Page<AuditRecord>> {
  const selection = selectionOf(query);
  return page('audit', query, (after, take) => auditRecords(db, selection, after, 'newest', take));
}

/**
 * One page of the records concerning one app, newest first (the developer's history of their app,
 * services/console): its changes, its secrets, its test webhooks and replays, and what the platform
 * did to it. The caller decides whose app it is; a cursor of another listing is refused.
 */
export async function appHistory(
  db: Db,
  appId: string,
  query: { limit?: number; cursor?: string } = {},
): Promise<Page<AuditRecord>> {
  return page('app-history', query, (after, take) => auditRecords(db, { appId }, after, 'newest', take));
}

/**
 * Every selected record of a range, oldest first, `batchSize` rows a statement: the log is never
 * read whole into memory. Both ends are required, so the same export run twice gives the same
 * records once the range has passed.
 */
export async function* exportAudit(
  db: Db,
  filter: AuditFilter & { since: string | Date; until: string | Date },
  { batchSize = 1000 }: { batchSize?: number } = {},
): AsyncGenerator<AuditRecord[]> {
  if (filter.since === undefined || filter.until === undefined) {
    throw new Refusal('INVALID_INPUT', 'an export needs both since and until');
  }
  const selection = selectionOf(filter);
  let after: Position | null = null;
  for (;;) {
    const batch = await auditRecords(db, selection, after, 'oldest', batchSize);
    if (batch.length > 0) yield batch;
    if (batch.length < batchSize) return;
    after = batch.at(-1) as AuditRecord;
  }
}

/** One record as a line of JSON Lines, snake_case, its keys always in this order. */
export function auditJsonLine(record: AuditRecord): string {
  return `${JSON.stringify({
    id: record.id,
    created_at: record.createdAt.toISOString(),
    actor_type: record.actorType,
    actor_id: record.actorId,
    action: record.action,
    target_type: record.targetType,
    target_id: record.targetId,
    details: record.details,
    request_id: record.requestId,
  })}\n`;
}
