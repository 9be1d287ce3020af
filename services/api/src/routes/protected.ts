// The bearer-protected operations: GET /cities (app or user token, city.public.read) and GET /me
// (user token, profile.basic.read). Authentication and liveness come first, then the scope, then
// the query.
import { wirePrefix } from '@devplat/config';
import { apiVersion, limits } from '@devplat/contract';
import { ProblemError, type ReadyAnswer, readyJson, sendReady } from '@devplat/http';
import type { Middleware } from 'koa';
import { type AccessToken, bearerToken, ExpiredTokenProblem, type TokenVerifier } from '../bearer.ts';
import type { City, CityRegistry } from '../city-registry.ts';
import type { LivenessAndProfileCheck, TokenProfile } from '../liveness.ts';

export interface Authenticated {
  token: AccessToken;
  profile: TokenProfile;
}

/**
 * Verifies the bearer token, refuses an app token where only user tokens are taken (before
 * anything else is checked), then checks liveness and reads the profile.
 */
export function authenticate(
  checkLivenessAndReadProfile: LivenessAndProfileCheck,
  verifier: TokenVerifier,
  options: { userTokensOnly?: boolean } = {},
): Middleware {
  return async (ctx, next) => {
    let token: AccessToken;
    try {
      token = await verifier.verify(bearerToken(ctx));
    } catch (error) {
      // An expired token of ours is still the app's call: its request log shows the refusal.
      if (error instanceof ExpiredTokenProblem) ctx.state.expiredTokenClientId = error.clientId;
      throw error;
    }
    ctx.state.clientId = token.clientId;
    ctx.state.verifiedToken = token;
    if (options.userTokensOnly && token.consentId === undefined) {
      throw new ProblemError(
        'USER_TOKEN_REQUIRED',
        `${ctx.method} ${ctx.path.slice(wirePrefix.length)} needs a user token (authorization_code or refresh_token grant).`,
      );
    }
    const profile = await checkLivenessAndReadProfile(token);
    ctx.state.auth = { token, profile } satisfies Authenticated;
    await next();
  };
}

function requireScope(token: AccessToken, scope: string): void {
  if (!token.scopes.has(scope)) {
    throw new ProblemError('INSUFFICIENT_SCOPE', `This operation needs the scope ${scope}.`, {
      'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
    });
  }
}

/** limit alone, at most once, 1 to 100; no cursor, since no pagination exists. */
function citiesLimit(querystring: string): number {
  const params = new URLSearchParams(querystring);
  const names = [...params.keys()];
  const unknown = names.find((name) => name !== 'limit');
  if (unknown === 'cursor') throw new ProblemError('INVALID_QUERY', 'There is no pagination: cursor is not supported.');
  if (unknown !== undefined)
    throw new ProblemError('INVALID_QUERY', `Unknown query parameter ${JSON.stringify(unknown.slice(0, 40))}.`);
  const values = params.getAll('limit');
  if (values.length > 1) throw new ProblemError('INVALID_QUERY', 'limit may appear once.');
  if (values.length === 0) return limits.citiesLimit.default;
  const value = values[0] as string;
  const limit = Number(value);
  if (!/^\d{1,3}$/.test(value) || limit < limits.citiesLimit.min || limit > limits.citiesLimit.max) {
    throw new ProblemError(
      'INVALID_QUERY',
      `limit must be an integer from ${limits.citiesLimit.min} to ${limits.citiesLimit.max}.`,
    );
  }
  return limit;
}

export function getCities(registry: CityRegistry): Middleware {
  // The answer does not depend on limit once it fits, so it is serialized once per registry
  // rebuild: serializing a few kilobytes of JSON on every call halved the route's throughput.
  let serialized: { cities: City[]; answer: ReadyAnswer } | undefined;
  const answer = (cities: City[]) => {
    if (serialized?.cities !== cities) {
      serialized = { cities, answer: readyJson({ api_version: apiVersion, data: cities, next_cursor: null }) };
    }
    return serialized.answer;
  };
  return async (ctx) => {
    const { token } = ctx.state.auth!;
    requireScope(token, 'city.public.read');
    const limit = citiesLimit(ctx.querystring);
    const cities = await registry.reviewed();
    if (cities.length > limit) {
      throw new ProblemError(
        'RESULT_TOO_LARGE',
        `The reviewed registry holds more than ${limit} cities and there is no pagination: ask with a larger limit (at most ${limits.citiesLimit.max}).`,
      );
    }
    sendReady(ctx, answer(cities));
  };
}

export function getMe(): Middleware {
  return (ctx) => {
    const { token, profile } = ctx.state.auth!;
    requireScope(token, 'profile.basic.read');
    sendReady(ctx, readyJson({ api_version: apiVersion, sub: token.sub, display_name: profile.displayName }));
  };
}
