import { createHmac } from 'node:crypto';

/**
 * The per-app pairwise subject: ps_ + 32 base64url characters of an HMAC over the client id and
 * the player id (the contract's idFormats.pairwiseSubject). Stable per app, unlinkable across apps
 * without PAIRWISE_SECRET, never a player id.
 */
export function pairwiseSubject(secret: string, clientId: string, playerId: string): string {
  return `ps_${createHmac('sha256', secret).update(`${clientId}\n${playerId}`).digest('base64url').slice(0, 32)}`;
}
