// Consent events a developer triggers for one of their own sandbox players (devplat trigger): the
// consent operations the player's Allow and Remove access run, so the app's webhook and devplat
// listen get exactly what production sends. The Allow grants no authorization-server grant here:
// no code or token exists for anyone to hold, and a triggered consent backs none (grant_id null).
// Each trigger is audited as consent.trigger, in the transaction of the change.
import { type Scope, userScopes } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { type Actor, recordAudit } from '../audit/store.ts';
import { refuse } from '../refusal.ts';
import { endSelectedConsents } from './end.ts';
import { insertGrantedConsent } from './grant.ts';

export type TriggeredEvent = 'consent.granted' | 'consent.revoked';

/**
 * The scopes a triggered Allow grants: those asked (already read as a list of at least one), else
 * every player scope the app holds; INVALID_SCOPES for one a player cannot allow the app.
 */
export function triggerableScopes(
  appScopes: readonly string[],
  asked: string[] | undefined,
  clientId: string,
): string[] {
  const grantable = userScopes.filter((scope) => appScopes.includes(scope));
  if (asked === undefined) {
    if (grantable.length === 0) {
      refuse('INVALID_SCOPES', `The app ${clientId} holds no scope a player allows (${userScopes.join(', ')}).`);
    }
    return [...grantable];
  }
  for (const scope of asked) {
    if (!grantable.includes(scope as Scope)) {
      refuse(
        'INVALID_SCOPES',
        `${scope} is not a scope a player can allow ${clientId}: it may ask ${grantable.join(', ') || 'none'}.`,
      );
    }
  }
  return [...new Set(asked)];
}

export interface TriggerSubject {
  app: { id: string; clientId: string };
  player: { id: string; username: string };
}

/** The consents the event is about (the one granted, or each one ended), each with its outbox event. */
export type Triggered = { consentId: string; eventId: string }[];

const auditTarget = (app: TriggerSubject['app'], consentId: string) => ({
  type: 'consent',
  id: consentId,
  appId: app.id,
});

/** Allow: a new receipt for `scopes` and its consent.granted event. */
export function triggerConsentGranted(
  prisma: PrismaClient,
  pairwiseSecret: string,
  by: Actor,
  { app, player }: TriggerSubject,
  scopes: string[],
): Promise<Triggered> {
  return prisma.$transaction(async (tx) => {
    const { consent, event } = await insertGrantedConsent(tx, pairwiseSecret, {
      app,
      playerId: player.id,
      grantId: null,
      scopes,
    });
    await recordAudit(tx, by, 'consent.trigger', auditTarget(app, consent.id), {
      event: 'consent.granted',
      client_id: app.clientId,
      username: player.username,
      scopes,
    });
    return [{ consentId: consent.id, eventId: event.id }];
  });
}

/**
 * Remove access: every active consent of the player with the app ends (reason player_withdrawal),
 * each with its consent.revoked event; no consents when there was none to end.
 */
export function triggerConsentRevoked(
  prisma: PrismaClient,
  pairwiseSecret: string,
  by: Actor,
  { app, player }: TriggerSubject,
): Promise<Triggered> {
  return prisma.$transaction(async (tx) => {
    const selection = { playerId: player.id, clientId: app.clientId };
    const { events } = await endSelectedConsents(tx, pairwiseSecret, selection, 'player_withdrawal');
    for (const { consentId } of events) {
      await recordAudit(tx, by, 'consent.trigger', auditTarget(app, consentId), {
        event: 'consent.revoked',
        client_id: app.clientId,
        username: player.username,
      });
    }
    return events;
  });
}
