// The provider's token and revocation answers, held to the contract: OAuthError bodies with
// exactly error and error_description, only the contract's error values, 401 for invalid_client
// and 400 otherwise. A request without any client authentication is invalid_client (RFC 6749
// §5.2), with the Basic challenge a 401 needs. A provider failure becomes a Problem (503 when a
// store is down).
import { DependencyUnavailableError } from '@devplat/errors';
import { ProblemError, requestCutOff } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import { noopTracing, type Tracing } from '@devplat/tracing';
import type { Context, Middleware, Next } from 'koa';
import type Provider from 'oidc-provider';

const contractErrors = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'invalid_scope',
  'unsupported_grant_type',
]);

// Provider errors the contract does not list, and what a client should read instead.
const translated: Record<string, [string, string]> = {
  invalid_target: ['invalid_request', 'resource indicators are not supported'],
  unauthorized_client: ['invalid_grant', 'the client may not use this grant'],
  unsupported_response_type: ['invalid_request', 'unsupported response type'],
  invalid_dpop_proof: ['invalid_request', 'DPoP is not supported'],
};

// How the provider answers a request with neither Authorization nor client_id (its own words: it
// calls that invalid_request, where RFC 6749 §5.2 has invalid_client).
const noClientAuthentication = 'no client authentication mechanism provided';

export function contractOAuthAnswers(
  provider: Provider,
  metrics?: Metrics,
  tracing: Tracing = noopTracing,
): Middleware {
  const answers = contractAnswers(provider);
  const answer = async (ctx: Context, next: Next) => {
    await answers(ctx, next);
    // A body its client cut off is no refusal: the provider's invalid_request reached nobody.
    if (requestCutOff(ctx.req)) return;
    noteForTheLog(ctx);
    if (metrics) countAnswer(metrics, ctx);
  };
  if (!tracing.enabled) return answer;
  return (ctx, next) =>
    tracing.span(endpointOf(ctx) === 'token' ? 'oauth token' : 'oauth revocation', {}, async (span) => {
      try {
        await answer(ctx, next);
      } finally {
        const grantType = grantTypeOf(ctx);
        // Only a grant type the provider knows: a request's own value could be anything.
        if (grantTypes.has(grantType)) span.set('devplat.oauth.grant_type', grantType);
        span.set('devplat.oauth.client_id', ctx.state.clientId as string | undefined);
        // A refusal is the client's error, answered as the contract says: noted, not a failed span.
        span.set('devplat.oauth.error', ctx.state.errorCode as string | undefined);
      }
    });
}

const grantTypes = new Set(['client_credentials', 'authorization_code', 'refresh_token']);

const endpointOf = (ctx: Context) => (ctx.path.endsWith('/revoke') ? 'revocation' : 'token');

/** The grant type the provider read from the request ('unknown' when it read none). */
function grantTypeOf(ctx: Context): string {
  const grantType = (ctx as { oidc?: { params?: { grant_type?: unknown } } }).oidc?.params?.grant_type;
  return typeof grantType === 'string' ? grantType : 'unknown';
}

/** The request's log line carries the authenticated client's id and the OAuth error answered. */
function noteForTheLog(ctx: Context): void {
  const clientId = (ctx as { oidc?: { client?: { clientId?: unknown } } }).oidc?.client?.clientId;
  if (typeof clientId === 'string') ctx.state.clientId = clientId;
  const error = (ctx.body as { error?: unknown } | undefined)?.error;
  if (ctx.status >= 400 && typeof error === 'string') ctx.state.errorCode = error;
}

/** Tokens issued by grant type, and refusals by the OAuth error noted for the log line. */
function countAnswer(metrics: Metrics, ctx: Context): void {
  const endpoint = endpointOf(ctx);
  const error = ctx.state.errorCode as string | undefined;
  if (error !== undefined) metrics.oauthRefusals.inc({ endpoint, error });
  else if (ctx.status === 200 && endpoint === 'token') {
    // Only a grant type the provider accepted issues a token, so the label's values are bounded.
    metrics.tokensIssued.inc({ grant_type: grantTypeOf(ctx) });
  }
}

function contractAnswers(provider: Provider): Middleware {
  // The provider answers server_error for anything thrown inside it and reports the cause only in
  // this event, emitted within the request.
  const failures = new WeakMap<Context, unknown>();
  provider.on('server_error', (ctx, error) => failures.set(ctx as unknown as Context, error));
  return async (ctx, next) => {
    await next();
    const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (ctx.status < 400 || typeof body?.error !== 'string') return;
    if (body.error === 'invalid_client_metadata') {
      // An app in the registry the provider cannot use: our defect, not the client's.
      throw new Error(`registry app refused by the provider: ${String(body.error_description)}`);
    }
    if (body.error === 'server_error') {
      const cause = failures.get(ctx);
      if (cause instanceof DependencyUnavailableError) {
        throw new ProblemError('SERVICE_UNAVAILABLE', 'Token service temporarily unavailable. Try again shortly.');
      }
      throw cause instanceof Error ? cause : new Error('provider server_error');
    }
    if (body.error === 'invalid_request' && body.error_description === noClientAuthentication) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', `Basic realm="${provider.issuer}"`);
      ctx.body = { error: 'invalid_client', error_description: 'client authentication is required' };
      return;
    }
    const [error, fallback] = contractErrors.has(body.error)
      ? [body.error, 'the request was refused']
      : (translated[body.error] ?? ['invalid_request', 'the request was refused']);
    const description =
      contractErrors.has(body.error) && typeof body.error_description === 'string' ? body.error_description : fallback;
    ctx.status = error === 'invalid_client' ? 401 : 400;
    ctx.body = { error, error_description: description };
  };
}
