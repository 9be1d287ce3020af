// The `data` of the consent events, built here only: the consents room writes them with each consent
// change, the console's test event (the events room) imitates consent.granted. docs/webhooks.md
// documents the members; receivers depend on them, so they change only with the contract.
import type { Consent, RevocationReason } from '@devplat/db';

// Type aliases, not interfaces: Prisma takes only those as JSON values.

/** What both events say: which app, the app's pairwise subject, and the receipt. */
type ConsentEventPayload = {
  /** The app's client id. */
  app: string;
  /** The player's pairwise subject for this app (ps_...): the event names no player otherwise. */
  sub: string;
  scopes: string[];
  /** The consent text version the receipt records. */
  receipt_version: string;
  consent_id: string;
};

export type ConsentGrantedPayload = ConsentEventPayload & {
  granted_at: string;
  /** Only on the console's test event, and then true. */
  test?: true;
};

export type ConsentRevokedPayload = ConsentEventPayload & {
  revoked_at: string;
  reason: RevocationReason;
};

/** The receipt as the events read it. */
type ConsentReceipt = Pick<Consent, 'id' | 'scopes' | 'consentTextVersion'>;

interface ConsentEventSubject<Receipt extends ConsentReceipt = ConsentReceipt> {
  clientId: string;
  sub: string;
  consent: Receipt;
}

function commonMembers({ clientId, sub, consent }: ConsentEventSubject): ConsentEventPayload {
  return {
    app: clientId,
    sub,
    scopes: consent.scopes,
    receipt_version: consent.consentTextVersion,
    consent_id: consent.id,
  };
}

/** consent.granted, from the receipt just written; `test` marks the console's test event. */
export function consentGrantedPayload(
  subject: ConsentEventSubject<ConsentReceipt & Pick<Consent, 'grantedAt'>> & { test?: boolean },
): ConsentGrantedPayload {
  return {
    ...commonMembers(subject),
    granted_at: subject.consent.grantedAt.toISOString(),
    ...(subject.test ? { test: true } : {}),
  };
}

/** consent.revoked, from the receipt being ended, when and why. */
export function consentRevokedPayload(
  subject: ConsentEventSubject & { revokedAt: Date; reason: RevocationReason },
): ConsentRevokedPayload {
  return { ...commonMembers(subject), revoked_at: subject.revokedAt.toISOString(), reason: subject.reason };
}
