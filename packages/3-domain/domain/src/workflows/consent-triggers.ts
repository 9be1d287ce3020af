// devplat trigger: a consent event for one of the developer's own sandbox players, made by the
// consent operations the player's Allow and Remove access run (trigger.ts), so the app's webhook and
// devplat listen get what production sends. No code or token is made for anyone. Sandbox only, as
// the whole console is; audited as consent.trigger. Each one writes a consent and its events, so an
// account may send only so many a minute (a console limit: the public API has none).
import type { PrismaClient } from '@devplat/db';
import { type Rate, type RateLimit, waitInWords } from '@devplat/throttle';
import { activeAppOfDeveloper, appOfDeveloper } from '../apps/developers.ts';
import type { Actor } from '../audit/store.ts';
import { pairwiseSubject } from '../consents/pairwise.ts';
import {
  type TriggeredEvent,
  triggerableScopes,
  triggerConsentGranted,
  triggerConsentRevoked,
} from '../consents/trigger.ts';
import { type JsonBody, refuseInput, requiredText, stringList } from '../input.ts';
import { playerOfDeveloper } from '../players/developers.ts';
import { refuse } from '../refusal.ts';

const triggerableEvents: readonly TriggeredEvent[] = ['consent.granted', 'consent.revoked'];

/** How many triggers an account may send, counted across every console replica (the shared store). */
export const triggerRate: Rate = { name: 'console-triggers', points: 10, seconds: 60 };

/** What a trigger did: the event sent for each consent it granted or ended. */
export interface TriggerView {
  event: TriggeredEvent;
  client_id: string;
  player: { id: string; username: string };
  /** The player's pairwise subject with the app: the `sub` of the events. */
  sub: string;
  sent: { consent_id: string; event_id: string }[];
}

/** The scopes asked of a triggered Allow, read as a list of at least one; undefined when not given. */
function askedScopes(asked: unknown): string[] | undefined {
  if (asked === undefined) return undefined;
  const scopes = stringList(asked, 'scopes');
  if (scopes.length === 0) refuseInput('scopes must name at least one scope.');
  return scopes;
}

/**
 * The console's consent triggers, over this database; `rate` counts each account's triggers
 * (triggerRate, on the shared store).
 */
export function consentTriggers(prisma: PrismaClient, pairwiseSecret: string, rate: RateLimit) {
  return {
    /**
     * Sends `event` for the developer's player with the developer's app: consent.granted grants a new
     * consent (the app must be active and the player enabled, as at Allow); consent.revoked ends every
     * active consent of the player with the app (CONSENT_NOT_FOUND when there is none). Past the
     * account's rate, TOO_MANY_REQUESTS with when to try again, before anything is read or written.
     */
    async trigger(actor: Actor, clientId: string, body: JsonBody): Promise<TriggerView> {
      const event = body.event;
      if (typeof event !== 'string' || !triggerableEvents.includes(event as TriggeredEvent)) {
        refuseInput(`event must be one of ${triggerableEvents.join(', ')}.`);
      }
      const playerRef = requiredText(body.player, 'player', 64);
      if (event === 'consent.revoked' && body.scopes !== undefined) {
        refuseInput('scopes applies to consent.granted only.');
      }
      const exceeded = await rate.take(actor.accountId);
      if (exceeded) {
        const { retryAfterSeconds } = exceeded;
        refuse(
          'TOO_MANY_REQUESTS',
          `Too many triggers: an account may send ${triggerRate.points} a minute. ` +
            `Try again in ${waitInWords(retryAfterSeconds)}.`,
          { retryAfterSeconds },
        );
      }
      const app =
        event === 'consent.granted'
          ? await activeAppOfDeveloper(prisma, actor.accountId, clientId)
          : await appOfDeveloper(prisma, actor.accountId, clientId);
      const player = await playerOfDeveloper(prisma, actor.accountId, playerRef);
      const subject = { app: { id: app.id, clientId: app.clientId }, player };
      let sent: { consentId: string; eventId: string }[];
      if (event === 'consent.granted') {
        if (player.status !== 'active') {
          refuseInput(`The sandbox player ${player.username} is disabled and cannot allow apps: enable them first.`);
        }
        const scopes = triggerableScopes(app.scopes, askedScopes(body.scopes), app.clientId);
        sent = await triggerConsentGranted(prisma, pairwiseSecret, actor, subject, scopes);
      } else {
        sent = await triggerConsentRevoked(prisma, pairwiseSecret, actor, subject);
        if (sent.length === 0) {
          refuse(
            'CONSENT_NOT_FOUND',
            `The sandbox player ${player.username} has no active consent with ${app.clientId}: trigger consent.granted first.`,
          );
        }
      }
      return {
        event: event as TriggeredEvent,
        client_id: app.clientId,
        player: { id: player.id, username: player.username },
        sub: pairwiseSubject(pairwiseSecret, app.clientId, player.id),
        sent: sent.map(({ consentId, eventId }) => ({ consent_id: consentId, event_id: eventId })),
      };
    },
  };
}
