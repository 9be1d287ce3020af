// An app's or a player's consents, for the operator: newest granted first, a page at a time,
// optionally only active or only revoked ones.
import { ConsentStatus } from '@devplat/db';
import type { Db } from '../db.ts';
import { oneOf, type Page, page } from '../paging.ts';
import { type ConsentListing, consentsNewestFirst } from './store.ts';

export type ListedConsent = Awaited<ReturnType<typeof consentsNewestFirst>>[number];

export interface ConsentList {
  /** active or revoked. */
  status?: string;
  /** Consents per page: 1 to 200, default 50. */
  limit?: number;
  /** The nextCursor of the page before. */
  cursor?: string;
}

/** One page of the consents of an app (`appId`) or of a player (`playerId`). */
export async function listConsents(
  db: Db,
  of: { appId: string } | { playerId: string },
  list: ConsentList,
): Promise<Page<ListedConsent>> {
  const listing: ConsentListing = { ...of };
  if (list.status !== undefined) listing.status = oneOf('status', list.status, Object.values(ConsentStatus));
  // The pages' positions are the grant times: a consent's created_at is when it was granted.
  const found = await page('consents', list, async (after, take) =>
    (await consentsNewestFirst(db, listing, after && { grantedAt: after.createdAt, id: after.id }, take)).map(
      (consent) => ({ ...consent, createdAt: consent.grantedAt }),
    ),
  );
  return found;
}
