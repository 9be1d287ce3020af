// Who may call the admin API: `Authorization: Bearer <operator token>`, a token whose hash is in
// the operator tokens file (ADMIN_TOKENS_FILE). Missing or wrong: 401 with the bearer challenge,
// logged (the token's prefix and length at most, never the token) and slowed per client address
// (failures.ts). A developer's API key (the console's) is never an operator token: refused alike,
// with a detail that says so. A read token may call GET (and HEAD); every other method changes
// something and needs a write token: 403.
import { setTimeout as sleep } from 'node:timers/promises';
import { apiKeyPrefix } from '@devplat/contract';
import { type Logger, ProblemError } from '@devplat/http';
import { keyShape, operatorTokenPrefix, type WatchedTokens } from '@devplat/keys';
import type { Middleware } from 'koa';
import type { FailedAttempts } from './failures.ts';
import { nameOperator } from './operator-log.ts';

export const challenge = { 'WWW-Authenticate': 'Bearer realm="devplat-admin"' };

const readMethods = ['GET', 'HEAD'];

/** The bearer token of an Authorization header; null when there is none, '' when it is not one. */
function bearerToken(authorization: string): string | null {
  if (authorization === '') return null;
  return /^Bearer +([^\s]+)$/i.exec(authorization)?.[1] ?? '';
}

export function authenticate(tokens: WatchedTokens, failures: FailedAttempts, logger: Logger): Middleware {
  return async (ctx, next) => {
    const token = bearerToken(ctx.get('Authorization'));
    const apiKey = token?.startsWith(apiKeyPrefix) ?? false;
    const operator = token && !apiKey ? tokens.find(token) : null;
    if (operator === null) {
      const { failures: count, delayMs } = failures.failed(ctx.ip);
      const shape = token ? keyShape(token, operatorTokenPrefix) : null;
      logger.warn(
        {
          request_id: ctx.state.requestId,
          address: ctx.ip,
          reason:
            token === null
              ? 'no token'
              : apiKey
                ? "a developer's API key"
                : !shape?.wellFormed
                  ? 'not an operator token'
                  : 'unknown token',
          ...(shape && { token_prefix: shape.prefix, token_length: shape.length }),
          failures: count,
          delay_ms: delayMs,
        },
        'admin API: authentication failed',
      );
      if (delayMs > 0) await sleep(delayMs);
      throw new ProblemError(
        'INVALID_TOKEN',
        token === null
          ? 'Send an operator token: Authorization: Bearer <token> (admin create-token makes one).'
          : apiKey
            ? "A developer's API key opens the developer console's API only, never the admin API: send an operator token."
            : 'The operator token is not valid: unknown, malformed, or removed from the operator tokens file.',
        challenge,
      );
    }
    failures.succeeded(ctx.ip);
    ctx.state.operator = operator;
    nameOperator(operator.name);
    if (operator.role !== 'write' && !readMethods.includes(ctx.method)) {
      throw new ProblemError(
        'ACCESS_DENIED',
        `The token of ${operator.name} is a read token: ${ctx.method} changes something and needs a write token.`,
      );
    }
    await next();
  };
}
