// The audit log's filters as an operator writes them, resolved to what the records keep: shared by
// the admin command (`admin audit`) and the admin API (GET /audit), so both doors read them alike.
import { isUuid, type PrismaClient } from '@devplat/db';
import { accountWithEmail } from '../accounts/operators.ts';
import { findAccountByEmail } from '../accounts/store.ts';
import { appWithClientId } from '../apps/operators.ts';
import type { AuditActor, AuditFilter } from '../audit/query.ts';
import { playerWithUsername } from '../players/operators.ts';

/** The filters as given: each a text, or absent. */
export interface GivenAuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  since?: string;
  until?: string;
}

/**
 * Whose records an actor means: an operator of that name, and the account it names, by id or by
 * e-mail. An operator's name is free text, so both are asked for rather than guessed between.
 */
async function actorsOf(prisma: PrismaClient, given: string): Promise<AuditActor[]> {
  const name = given.trim();
  const actors: AuditActor[] = [{ type: 'operator', id: name }];
  if (isUuid(name)) actors.push({ type: 'account', id: name.toLowerCase() });
  if (name.includes('@')) {
    const account = await findAccountByEmail(prisma, name.toLowerCase());
    if (account) actors.push({ type: 'account', id: account.id });
  }
  return actors;
}

/**
 * <type>[:<id>]; an account may be named by e-mail, an app by client id and a player by username,
 * as the operator knows them: the record keeps the id. `malformed` makes the door's own error for
 * a target that is not written that way.
 */
async function targetOf(
  prisma: PrismaClient,
  given: string,
  malformed: (message: string) => Error,
): Promise<AuditFilter['target']> {
  const at = given.indexOf(':');
  const type = (at < 0 ? given : given.slice(0, at)).trim();
  const id = at < 0 ? undefined : given.slice(at + 1).trim();
  if (id === '') throw malformed(`target takes <type> or <type>:<id> (got "${given}")`);
  if (id === undefined || isUuid(id)) return { type, ...(id !== undefined && { id: id.toLowerCase() }) };
  if (type === 'account' && id.includes('@')) {
    return { type, id: (await accountWithEmail(prisma, id)).id };
  }
  if (type === 'app' && id.startsWith('svc_')) {
    return { type, id: (await appWithClientId(prisma, id, { deleted: 'found' })).id };
  }
  if (type === 'player' || type === 'sandbox_player') {
    return { type, id: (await playerWithUsername(prisma, id)).id };
  }
  return { type, id };
}

/** The audit room's filter for what an operator gave. */
export async function auditFilterOf(
  prisma: PrismaClient,
  { actor, action, target, since, until }: GivenAuditFilter,
  malformed: (message: string) => Error,
): Promise<AuditFilter> {
  return {
    ...(actor !== undefined && { actors: await actorsOf(prisma, actor) }),
    ...(action !== undefined && { action }),
    ...(target !== undefined && { target: await targetOf(prisma, target, malformed) }),
    ...(since !== undefined && { since }),
    ...(until !== undefined && { until }),
  };
}
