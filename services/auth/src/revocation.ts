// RFC 7009 for our JWT access tokens, which the provider does not store and will not revoke: the
// provider authenticates the client and answers unsupported_token_type; this middleware then
// revokes the token itself. An app token goes on the revoked list until it expires; a user token
// ends its consent. Unknown, garbage and foreign tokens are answered 200 and left alone.
import type { Config, Secrets } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { publicJwks } from './internal.ts';

/**
 * RFC 7009's success is a 200 with an empty body. Whatever wrote it (the provider for a refresh
 * token, revokeJwtAccessTokens after the provider's JSON refusal), it leaves with no Content-Type
 * and Content-Length: 0: an empty body labelled JSON breaks clients that parse every JSON answer.
 */
export const emptyRevocationAnswer: Middleware = async (ctx, next) => {
  await next();
  if (ctx.status !== 200) return;
  ctx.remove('Content-Type'); // first: Koa turns a null body of a JSON answer into 'null'
  ctx.body = null;
  ctx.status = 200;
};

export function revokeJwtAccessTokens(
  config: Config,
  secrets: Secrets,
  prisma: PrismaClient,
  provider: Provider,
): Middleware {
  const keys = createLocalJWKSet(publicJwks(secrets));
  return async (ctx, next) => {
    await next();
    const body = ctx.body as { error?: string } | undefined;
    const oidc = (ctx as unknown as KoaContextWithOIDC).oidc;
    if (body?.error !== 'unsupported_token_type' || !oidc?.client) return;
    ctx.status = 200;
    ctx.body = '';
    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
    try {
      ({ payload } = await jwtVerify(String(oidc.params?.token), keys, {
        algorithms: ['EdDSA'],
        typ: 'at+jwt',
        issuer: config.baseUrl.href,
        audience: config.baseUrl.href,
      }));
    } catch {
      return; // not one of ours, or already expired: nothing to revoke
    }
    if (payload.client_id !== oidc.client.clientId || !payload.jti || !payload.exp) return;
    if (typeof payload.gid === 'string') {
      await provider.Grant.adapter.destroy(payload.gid);
      return;
    }
    await prisma.revokedToken.upsert({
      where: { jti: payload.jti },
      create: { jti: payload.jti, expiresAt: new Date(payload.exp * 1000) },
      update: {},
    });
  };
}
