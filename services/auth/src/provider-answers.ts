// The boundary where oidc-provider's own answers on the token and revocation endpoints become the
// contract's. The provider speaks a wider OAuth than the contract: more error values, members beside
// error and error_description (scope, state), HTML for a browser's Accept header, a refusal for the
// JWT access tokens it will not revoke, a server_error that hides its cause. Every rewrite is a row
// below with its reason. A refusal is matched by its `error` code (one per provider error class), by
// its text only where the provider has nothing else that tells it apart.
import { DependencyUnavailableError, UnstorableValueError } from '@devplat/errors';
import { type Logger, unavailableProblem, unstorableValueProblem } from '@devplat/http';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { tokenRequestFacts, withinRequest } from './token-request.ts';

/** A refusal as the provider wrote it (its errOut of the error it caught). */
interface ProviderRefusal {
  error: string;
  error_description?: unknown;
}

/** Revokes one of our JWT access tokens presented by the client (revocation.ts). */
export type JwtAccessTokenRevocation = (clientId: string, token: string) => Promise<void>;

interface Rewrite {
  /** The provider's `error` code this row takes. */
  error: string;
  /** Why the contract cannot take the provider's answer as it is. */
  reason: string;
  /** What else the answer must show, when its code alone does not say enough. */
  when?: (ctx: KoaContextWithOIDC, refusal: ProviderRefusal) => boolean;
  rewrite: (ctx: KoaContextWithOIDC, refusal: ProviderRefusal) => void | Promise<void>;
}

const contractErrors = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'invalid_scope',
  'unsupported_grant_type',
]);

/** The contract's OAuthError: exactly error and error_description; 401 for invalid_client, else 400. */
function refuse(ctx: KoaContextWithOIDC, error: string, description: string): void {
  ctx.status = error === 'invalid_client' ? 401 : 400;
  ctx.body = { error, error_description: description };
}

const translated =
  (error: string, description: string): Rewrite['rewrite'] =>
  (ctx) =>
    refuse(ctx, error, description);

/**
 * A value the database cannot store that reached a statement (the boundary's backstop): a malformed
 * request, answered as the contract's OAuth error rather than a Problem, and noted in the log.
 */
function unstorableValue(ctx: KoaContextWithOIDC, error: UnstorableValueError, logger: Logger): void {
  refuse(ctx, 'invalid_request', unstorableValueProblem(error, logger, ctx.state.requestId).detail);
}

function refusalRewrites(provider: Provider, logger: Logger): Rewrite[] {
  return [
    {
      error: 'server_error',
      reason:
        'The provider answers server_error for anything thrown inside it and names the cause only in its ' +
        'server_error event: the platform answers it as a Problem (503 when a store is down) and logs it; ' +
        'a value the database cannot store is the request at fault (invalid_request).',
      rewrite: (ctx) => {
        const cause = tokenRequestFacts(ctx).failure;
        if (cause instanceof UnstorableValueError) return unstorableValue(ctx, cause, logger);
        if (cause instanceof DependencyUnavailableError) throw tokenServiceUnavailable(ctx, cause, logger);
        throw cause instanceof Error ? cause : new Error('provider server_error');
      },
    },
    {
      error: 'invalid_client_metadata',
      reason: "An app in the registry the provider cannot use is our defect, not the client's.",
      rewrite: (_ctx, refusal) => {
        throw new Error(`registry app refused by the provider: ${String(refusal.error_description)}`);
      },
    },
    {
      error: 'invalid_request',
      reason:
        'A request without any client authentication is invalid_client (RFC 6749 §5.2), with the Basic ' +
        'challenge a 401 needs; the provider calls it invalid_request and tells it apart only by its text.',
      when: (_ctx, refusal) => refusal.error_description === 'no client authentication mechanism provided',
      rewrite: (ctx) => {
        ctx.set('WWW-Authenticate', `Basic realm="${provider.issuer}"`);
        refuse(ctx, 'invalid_client', 'client authentication is required');
      },
    },
    {
      error: 'invalid_request',
      reason:
        "Basic credentials no client can have (a character outside RFC 6749's VSCHAR, such as NUL, or an escape " +
        'that decodes to no UTF-8) fail client authentication as they do in the form: invalid_client with the ' +
        'challenge of any failed Basic authentication, not a malformed request; the provider tells it apart only by its text.',
      when: (_ctx, refusal) =>
        refusal.error_description ===
        'client_id and client_secret in the authorization header are not properly encoded',
      rewrite: (ctx) => {
        const description = 'client authentication failed';
        ctx.set(
          'WWW-Authenticate',
          `Basic realm="${provider.issuer}", error="invalid_client", error_description="${description}"`,
        );
        refuse(ctx, 'invalid_client', description);
      },
    },
    {
      error: 'invalid_target',
      reason: 'The contract has one resource and no resource indicators.',
      rewrite: translated('invalid_request', 'resource indicators are not supported'),
    },
    {
      error: 'unauthorized_client',
      reason: "Not a contract error value: a grant the app may not use is the contract's invalid_grant.",
      rewrite: translated('invalid_grant', 'the client may not use this grant'),
    },
    {
      error: 'unsupported_response_type',
      reason: 'Not a contract error value.',
      rewrite: translated('invalid_request', 'unsupported response type'),
    },
    {
      error: 'invalid_dpop_proof',
      reason: 'The contract has no DPoP.',
      rewrite: translated('invalid_request', 'DPoP is not supported'),
    },
  ];
}

/**
 * Whatever no row takes: a contract error keeps its code and description and loses every other
 * member (scope, state); any other code is the contract's invalid_request.
 */
function contractRefusal(ctx: KoaContextWithOIDC, refusal: ProviderRefusal): void {
  const fallback = 'the request was refused';
  if (!contractErrors.has(refusal.error)) refuse(ctx, 'invalid_request', fallback);
  else refuse(ctx, refusal.error, typeof refusal.error_description === 'string' ? refusal.error_description : fallback);
}

function jwtAccessTokenRevocation(revoke: JwtAccessTokenRevocation): Rewrite {
  return {
    error: 'unsupported_token_type',
    reason:
      'The provider does not store our JWT access tokens and will not revoke them; RFC 7009 revocation ' +
      'of them is ours (revocation.ts), answered 200 like every revocation the client was allowed.',
    when: (ctx) => Boolean(ctx.oidc?.client),
    rewrite: async (ctx) => {
      const { client, params } = ctx.oidc;
      ctx.status = 200;
      ctx.body = '';
      await revoke((client as { clientId: string }).clientId, String(params?.token));
    },
  };
}

/**
 * RFC 7009's success is a 200 with an empty body. Whatever wrote it (the provider for a refresh
 * token, the JWT access token revocation above), it leaves with no Content-Type and Content-Length: 0:
 * an empty body labelled JSON breaks clients that parse every JSON answer.
 */
function emptyRevocationAnswer(ctx: KoaContextWithOIDC): void {
  ctx.remove('Content-Type'); // first: Koa turns a null body of a JSON answer into 'null'
  ctx.body = null;
  ctx.status = 200;
}

/** The 503 of a token request whose store failed; its log line names the store. */
export const tokenServiceUnavailable = (
  ctx: { state: { requestId: string } },
  cause: DependencyUnavailableError,
  logger: Logger,
) =>
  unavailableProblem(logger, cause, ctx.state.requestId, 'Token service temporarily unavailable. Try again shortly.');

/**
 * The request's single-use write (a code's use, a refresh token's rotation), made once the provider
 * has answered 200 and before the answer leaves: lost to a concurrent use, the answer is the
 * contract's invalid_grant (the grant was revoked as a replay); failed, a 503 that used nothing up.
 */
async function committed(ctx: KoaContextWithOIDC, logger: Logger): Promise<void> {
  const { commit } = tokenRequestFacts(ctx);
  if (!commit || ctx.status !== 200) return;
  try {
    await withinRequest(ctx, commit);
  } catch (error) {
    if (error instanceof errors.InvalidGrant) return refuse(ctx, error.error, error.error_description ?? '');
    if (error instanceof DependencyUnavailableError) throw tokenServiceUnavailable(ctx, error, logger);
    throw error;
  }
}

function answering(rewrites: Rewrite[]) {
  return async (ctx: KoaContextWithOIDC): Promise<void> => {
    const refusal = ctx.body as ProviderRefusal | undefined;
    if (ctx.status < 400 || typeof refusal?.error !== 'string') return;
    const row = rewrites.find((rewrite) => rewrite.error === refusal.error && (rewrite.when?.(ctx, refusal) ?? true));
    await (row ? row.rewrite(ctx, refusal) : contractRefusal(ctx, refusal));
  };
}

/** The token and revocation endpoints' answers, held to the contract; placed right before the provider. */
export function providerAnswers(
  provider: Provider,
  revokeJwtAccessToken: JwtAccessTokenRevocation,
  logger: Logger,
): { token: Middleware; revocation: Middleware } {
  provider.on('server_error', (ctx, error) => {
    tokenRequestFacts(ctx).failure = error;
  });
  const rewrites = refusalRewrites(provider, logger);
  const tokenAnswer = answering(rewrites);
  const revocationAnswer = answering([jwtAccessTokenRevocation(revokeJwtAccessToken), ...rewrites]);
  // What the steps ahead of the provider throw (grants/app-tokens.ts): the provider's own throws
  // come back as its server_error answer instead.
  const served = async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof UnstorableValueError)) throw error;
      unstorableValue(ctx, error, logger);
    }
  };
  return {
    token: async (ctx, next) => {
      await served(ctx as unknown as KoaContextWithOIDC, next);
      await committed(ctx as unknown as KoaContextWithOIDC, logger);
      await tokenAnswer(ctx as unknown as KoaContextWithOIDC);
    },
    revocation: async (ctx, next) => {
      await served(ctx as unknown as KoaContextWithOIDC, next);
      const oidcCtx = ctx as unknown as KoaContextWithOIDC;
      await revocationAnswer(oidcCtx);
      if (ctx.status === 200) emptyRevocationAnswer(oidcCtx);
    },
  };
}

/** The provider answers HTML to a browser-like Accept header; the contract allows only JSON here. */
export const renderErrorAsJson: NonNullable<Configuration['renderError']> = async (ctx, out) => {
  ctx.type = 'json';
  ctx.body = out;
};
