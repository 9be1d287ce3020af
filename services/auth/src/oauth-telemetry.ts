// What the token and revocation endpoints' answers tell the operators, read after the answer
// boundary (provider-answers.ts) has held them to the contract: the log line's client id and OAuth
// error, tokens issued and refusals counted, a span per request, and the usage bookkeeping (each
// app's tokens, each secret's last use: only noted here, written later off the path).

import { requestCutOff } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import { noopTracing, type Tracing } from '@devplat/tracing';
import type { TokenUsage } from '@devplat/usage';
import type { Context, Middleware, Next } from 'koa';
import { tokenRequestFacts } from './token-request.ts';

export function oauthTelemetry(metrics?: Metrics, tracing: Tracing = noopTracing, usage?: TokenUsage): Middleware {
  const observe = async (ctx: Context, next: Next) => {
    await next();
    // A body its client cut off is no refusal: the provider's invalid_request reached nobody.
    if (requestCutOff(ctx.req)) return;
    noteForTheLog(ctx);
    if (metrics) countAnswer(metrics, ctx);
    if (usage) noteUsage(usage, ctx);
  };
  if (!tracing.enabled) return observe;
  return (ctx, next) =>
    tracing.span(endpointOf(ctx) === 'token' ? 'oauth token' : 'oauth revocation', {}, async (span) => {
      try {
        await observe(ctx, next);
      } finally {
        const grantType = grantTypeOf(ctx);
        // Only a grant type the provider knows: a request's own value could be anything.
        if (grantTypes.has(grantType)) span.set('devplat.oauth.grant_type', grantType);
        span.set('devplat.oauth.client_id', ctx.state.clientId);
        // A refusal is the client's error, answered as the contract says: noted, not a failed span.
        span.set('devplat.oauth.error', ctx.state.errorCode);
      }
    });
}

const grantTypes = new Set(['client_credentials', 'authorization_code', 'refresh_token']);

/** The grant type of a token request when it is one the provider knows; undefined for any other value. */
export function knownGrantType(ctx: Context): string | undefined {
  const grantType = grantTypeOf(ctx);
  return grantTypes.has(grantType) ? grantType : undefined;
}

const endpointOf = (ctx: Context) => (ctx.path.endsWith('/revoke') ? 'revocation' : 'token');

/** The grant type the provider read from the request, or the one served ahead of it ('unknown': none). */
function grantTypeOf(ctx: Context): string {
  const grantType =
    (ctx as { oidc?: { params?: { grant_type?: unknown } } }).oidc?.params?.grant_type ??
    tokenRequestFacts(ctx).grantType;
  return typeof grantType === 'string' ? grantType : 'unknown';
}

/** The request's log line carries the authenticated client's id and the OAuth error answered. */
function noteForTheLog(ctx: Context): void {
  const clientId = (ctx as { oidc?: { client?: { clientId?: unknown } } }).oidc?.client?.clientId;
  if (typeof clientId === 'string') ctx.state.clientId = clientId;
  const error = (ctx.body as { error?: unknown } | undefined)?.error;
  if (ctx.status >= 400 && typeof error === 'string') ctx.state.errorCode = error;
}

/**
 * The secret that authenticated (on either endpoint, whatever the answer: it was used) and, for an
 * access token issued, its app, both from what the request learnt (token-request.ts). Two map
 * updates in this process; @devplat/usage writes them to the stores later.
 */
function noteUsage(usage: TokenUsage, ctx: Context): void {
  const facts = tokenRequestFacts(ctx);
  if (facts.clientSecretId !== undefined) usage.secretUsed(facts.clientSecretId);
  if (ctx.status === 200 && facts.app && endpointOf(ctx) === 'token') usage.count(facts.app.id);
}

/** Tokens issued by grant type, and refusals by the OAuth error noted for the log line. */
function countAnswer(metrics: Metrics, ctx: Context): void {
  const endpoint = endpointOf(ctx);
  const error = ctx.state.errorCode;
  if (error !== undefined) metrics.oauthRefusals.inc({ endpoint, error });
  else if (ctx.status === 200 && endpoint === 'token') {
    // Only a grant type the provider accepted issues a token, so the label's values are bounded.
    metrics.tokensIssued.inc({ grant_type: grantTypeOf(ctx) });
  }
}
