// The admin API ends consents: one consent, every active one of an app, or every active one of a
// sandbox player. The consents room (@devplat/domain/consents) ends each with its consent.revoked
// event (reason operator_revocation) and writes the audit record in the same transaction, only
// when something ended (the bulk ends 500 consents a transaction, a record each): a second call
// ends nothing, records nothing and answers `ended: 0`. Nothing is cached to tell: every token
// under an ended consent is refused on its next call.
//
// The events name each player by the app's pairwise subject, so these routes need the auth
// service's PAIRWISE_SECRET. A process started without it serves everything else and answers
// these 503: the request is sound, the server cannot honour it until it is given the secret.
import type { Operator } from '@devplat/domain/audit';
import { type BulkEnd, endAppConsents, endConsentByOperator, endPlayerConsents } from '@devplat/domain/consents';
import { ProblemError } from '@devplat/http';
import type { Context } from 'koa';
import { appAt } from './apps.ts';
import { playerAt } from './players.ts';
import { readReason } from './request.ts';
import { type AdminRoutes, answer, operatorOf } from './routes.ts';

/** The details of an ending's audit record: the operator's reason. */
type Reason = { reason: string | null };

export function consentRoutes({ prisma, pairwiseSecret, guarded }: AdminRoutes): void {
  const secret = (): string => {
    if (pairwiseSecret === null) {
      throw new ProblemError(
        'SERVICE_UNAVAILABLE',
        'The admin API was started without PAIRWISE_SECRET (or PAIRWISE_SECRET_FILE), which ending consents needs: ' +
          "each consent.revoked event names the player by the app's pairwise subject. Nothing was changed.",
      );
    }
    return pairwiseSecret;
  };
  /** The reason and the secret, checked before anything is looked up. */
  const prepare = async (ctx: Context) => {
    const reason = readReason(ctx);
    return { reason, secret: secret() };
  };

  guarded('/consents/:consent_id/end', {
    POST: async (ctx) => {
      const { reason, secret } = await prepare(ctx);
      const id = ctx.params.consent_id as string;
      const { consent, ended } = await endConsentByOperator(prisma, secret, operatorOf(ctx), id, { reason });
      answer(ctx, 200, {
        consent: {
          id: consent.id,
          client_id: consent.clientId,
          player_id: consent.playerId,
          status: consent.status,
          revocation_reason: consent.revocationReason,
        },
        ended: ended ? 1 : 0,
      });
    },
  });

  /** Every active consent of the app or player the path names, ended by `end`. */
  const endAllOf = <Owner>(
    path: string,
    find: (ctx: Context) => Promise<Owner>,
    end: (prisma: AdminRoutes['prisma'], secret: string, by: Operator, owner: Owner, why: Reason) => Promise<BulkEnd>,
  ) =>
    guarded(path, {
      POST: async (ctx) => {
        const { reason, secret } = await prepare(ctx);
        const { ended, batches } = await end(prisma, secret, operatorOf(ctx), await find(ctx), { reason });
        answer(ctx, 200, { ended, batches });
      },
    });
  endAllOf('/apps/:client_id/consents/end', (ctx) => appAt(prisma, ctx), endAppConsents);
  endAllOf('/players/:username/consents/end', (ctx) => playerAt(prisma, ctx), endPlayerConsents);
}
