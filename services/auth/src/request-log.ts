// What the token and revocation endpoints note for each app's request log (@devplat/request-log
// request-log.ts), read once the answer is written (the envelope's observer, so a Problem thrown on
// the way counts too): the app is the one whose client id the request named, if it is usable;
// the call goes to the app's own log once one of its secrets matched, and to the failed client
// authentications of that client id otherwise. A client id no usable app has is recorded nowhere.

import { wirePrefix } from '@devplat/config';
import { type RequestObserver, requestCutOff } from '@devplat/http';
import type { RequestLog } from '@devplat/request-log';
import { knownGrantType } from './oauth-telemetry.ts';
import { tokenRequestFacts } from './token-request.ts';

const tokenPath = `${wirePrefix}/oauth/token`;
const revocationPath = `${wirePrefix}/oauth/revoke`;

/** The observer that notes every answered token and revocation request of a usable app. */
export function recordTokenRequests(requests: RequestLog): RequestObserver {
  return (ctx, seconds) => {
    const path = ctx.path;
    const operation = path === tokenPath ? 'token' : path === revocationPath ? 'revoke' : null;
    // A body its client cut off is no call: nobody read the answer (as oauth-telemetry.ts).
    if (operation === null || requestCutOff(ctx.req)) return;
    const facts = tokenRequestFacts(ctx);
    if (!facts.app) return;
    requests.record({
      clientId: facts.app.clientId,
      authenticated: facts.clientSecretId !== undefined,
      operation,
      status: ctx.status,
      error: ctx.state.errorCode,
      requestId: ctx.state.requestId,
      seconds,
      grantType: operation === 'token' ? knownGrantType(ctx) : undefined,
      subject: undefined,
    });
  };
}
