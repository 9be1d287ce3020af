// The consent events' data, member by member and in order, as a receiver verifies and reads it.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { signedHeaders, webhookBody } from '@devplat/webhooks';
import { Webhook } from 'standardwebhooks';
import { consentGrantedPayload, consentRevokedPayload } from '../src/consents/index.ts';

const clientId = 'svc_abcdefghijklmnopqrstuvwxyz';
const sub = `ps_${'a'.repeat(32)}`;
const receipt = {
  id: '0b6f3c1e-5d0a-4e8b-9c4f-2a7d1e6b3f90',
  scopes: ['city.public.read', 'profile.basic.read'],
  consentTextVersion: '2026-11-22',
  grantedAt: new Date('2026-11-22T05:20:00.000Z'),
};
/** The members both events start with, in their order. */
const receiptMembers = {
  app: clientId,
  sub,
  scopes: ['city.public.read', 'profile.basic.read'],
  receipt_version: '2026-11-22',
  consent_id: receipt.id,
};
const revokedAt = new Date('2026-11-22T05:23:13.522Z');

describe('consent.granted', () => {
  test('names the app, the pairwise subject, the receipt and when it was granted', () => {
    const payload = consentGrantedPayload({ clientId, sub, consent: receipt });
    assert.equal(
      JSON.stringify(payload),
      JSON.stringify({ ...receiptMembers, granted_at: '2026-11-22T05:20:00.000Z' }),
    );
  });

  test('a test event carries test: true last, and only a test event carries it', () => {
    const payload = consentGrantedPayload({ clientId, sub, consent: receipt, test: true });
    assert.deepEqual(Object.keys(payload), [
      'app',
      'sub',
      'scopes',
      'receipt_version',
      'consent_id',
      'granted_at',
      'test',
    ]);
    assert.equal(payload.test, true);
    assert.equal('test' in consentGrantedPayload({ clientId, sub, consent: receipt, test: false }), false);
  });
});

describe('consent.revoked', () => {
  test('names the app, the pairwise subject, the receipt, when and why it ended', () => {
    const payload = consentRevokedPayload({ clientId, sub, consent: receipt, revokedAt, reason: 'player_withdrawal' });
    assert.equal(
      JSON.stringify(payload),
      JSON.stringify({ ...receiptMembers, revoked_at: '2026-11-22T05:23:13.522Z', reason: 'player_withdrawal' }),
    );
  });
});

test('a receiver verifies the signed body with standardwebhooks and reads the payload as data', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const payload = consentRevokedPayload({ clientId, sub, consent: receipt, revokedAt, reason: 'token_revocation' });
  const id = randomUUID();
  const now = new Date();
  const body = webhookBody({ id, type: 'consent.revoked', createdAt: now, payload });
  const verified = new Webhook(secret).verify(body, signedHeaders(id, body, secret, now)) as Record<string, unknown>;
  assert.deepEqual(verified, { id, type: 'consent.revoked', timestamp: now.toISOString(), data: payload });
});
