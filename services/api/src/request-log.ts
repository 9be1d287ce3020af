// What /cities and /me note for each app's request log (@devplat/request-log), read once
// the answer is written (the envelope's observer, so a refusal thrown on the way counts too): every
// call whose bearer token verified (or verified but had expired), under the token's client id; a
// user token's pairwise subject, never the consent or the player behind it. A call without such a
// token (none, a forged one, another issuer's) proves no app and is in no log.

import { wirePrefix } from '@devplat/config';
import { type RequestObserver, requestCutOff } from '@devplat/http';
import type { RequestLog, RequestOperation } from '@devplat/request-log';

const operations = new Map<string, RequestOperation>([
  [`${wirePrefix}/cities`, 'cities'],
  [`${wirePrefix}/me`, 'me'],
]);

/** The observer that notes every answered /cities and /me call with a verified token. */
export function recordApiRequests(requests: RequestLog): RequestObserver {
  return (ctx, seconds) => {
    const token = ctx.state.verifiedToken;
    const clientId = token?.clientId ?? ctx.state.expiredTokenClientId;
    if (clientId === undefined || requestCutOff(ctx.req)) return;
    const operation = operations.get(ctx.path);
    if (operation === undefined) return;
    requests.record({
      clientId,
      authenticated: true,
      operation,
      status: ctx.status,
      error: ctx.state.errorCode,
      requestId: ctx.state.requestId,
      seconds,
      grantType: undefined,
      // An app token's sub is its client id: only a user token's (pairwise) is worth noting.
      subject: token?.consentId === undefined ? undefined : token.sub,
    });
  };
}
