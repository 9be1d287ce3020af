// What a token or revocation request has learnt while oidc-provider serves it: one typed record per
// request, each fact set by the step that learns it and read by the steps after it. The provider
// calls our hooks (the Client adapter, compareClientSecret, rotateRefreshToken, extraTokenClaims,
// its events) inside the request but not always with it: Provider.ctx is that request's context
// (AsyncLocalStorage), the same Koa context the routes see, and the record lives on its ctx.state
// under one key.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { UsableApp } from '@devplat/app-directory';
import type { FiledEntry, KeyValueStore } from '@devplat/kv';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

export interface TokenRequestFacts {
  /** The usable app the request's client_id names, with its active secret hashes (the Client adapter). */
  app?: UsableApp;
  /** The secret the request authenticated with, once one matched (compareClientSecret). */
  clientSecretId?: string;
  /** The active consent behind the grant a refresh presented, checked before rotating (rotateRefreshToken). */
  consent?: { grantId: string; consentId: string };
  /**
   * The grant a refresh gives 30 more days (rotateFamily), and its write: the Grant adapter leaves
   * it to the rotation's swap (refresh-token-adapter.ts), one atomic step with the family's.
   */
  extendedGrant?: { grantId: string; write?: FiledEntry };
  /**
   * Entries read ahead, in the same round trip as an earlier read of this request: the refresh
   * token's find reads its grant, which the provider asks for next. Each is used once, then read
   * afresh.
   */
  readAhead?: Map<string, string | null>;
  /** The refresh token the provider consumed, until the save of the next one swaps it (refresh-token-adapter.ts). */
  presentedRefreshToken?: string;
  /**
   * The request's single-use write (a code's use, a refresh token's rotation), noted by the store
   * adapters and made only once the provider has built its 200 answer (provider-answers.ts): a
   * request that fails at any earlier step has used nothing up.
   */
  commit?: () => Promise<void>;
  /** The grant answered ahead of the provider (grants/app-tokens.ts), which then has no params. */
  grantType?: 'client_credentials';
  /** What was thrown inside the provider when it answered server_error (its server_error event). */
  failure?: unknown;
}

const facts = Symbol('token request facts');

type WithFacts = { [facts]?: TokenRequestFacts };

/** The request's record, begun by whichever step learns something first. */
export function tokenRequestFacts(ctx: { state: object }): TokenRequestFacts {
  const state = ctx.state as WithFacts;
  let record = state[facts];
  if (!record) {
    record = {};
    state[facts] = record;
  }
  return record;
}

// The request whose commit runs after the provider has answered, outside its own request scope.
const committing = new AsyncLocalStorage<KoaContextWithOIDC>();

/** Runs the request's commit as part of the request: what it calls sees the request as current. */
export const withinRequest = <T>(ctx: KoaContextWithOIDC, work: () => Promise<T>): Promise<T> =>
  committing.run(ctx, work);

/** The request being served, when a provider hook (or the request's commit) runs inside one. */
export const currentRequest = (): KoaContextWithOIDC | undefined => Provider.ctx ?? committing.getStore();

/** The record of the request a provider hook runs inside; none outside a request. */
export function currentFacts(): TokenRequestFacts | undefined {
  const ctx = currentRequest();
  return ctx && tokenRequestFacts(ctx);
}

/**
 * Leaves a single-use write to the token request's 200 answer (provider-answers.ts), when the hook
 * runs inside one; false elsewhere, where the caller writes at once.
 */
export function deferToAnswer(commit: () => Promise<void>): boolean {
  const facts = tokenRouteFacts();
  if (!facts) return false;
  facts.commit = commit;
  return true;
}

/** The facts of the token request being served; none in a revocation or outside a request. */
function tokenRouteFacts(): TokenRequestFacts | undefined {
  const ctx = currentRequest();
  return ctx?.oidc?.route === 'token' ? tokenRequestFacts(ctx) : undefined;
}

/**
 * The values of `keys`: those an earlier read of this request read ahead (readAhead), each taken
 * once, when it has them all; otherwise read from the store.
 */
export async function readOnce(store: KeyValueStore, keys: string[]): Promise<(string | null)[]> {
  const ahead = currentFacts()?.readAhead;
  if (!ahead || !keys.every((key) => ahead.has(key))) return store.getMany(keys);
  return keys.map((key) => {
    const value = ahead.get(key) ?? null;
    ahead.delete(key);
    return value;
  });
}

/**
 * Reads `keys` and, in a token request, `ahead` in the same round trip, kept for a later readOnce
 * of the request; elsewhere (a revocation, outside a request) `keys` alone.
 */
export async function readWithAhead(store: KeyValueStore, keys: string[], ahead: string[]): Promise<(string | null)[]> {
  const facts = tokenRouteFacts();
  if (!facts) return store.getMany(keys);
  const values = await store.getMany([...keys, ...ahead]);
  facts.readAhead ??= new Map();
  for (const [i, key] of ahead.entries()) facts.readAhead.set(key, values[keys.length + i] ?? null);
  return values.slice(0, keys.length);
}
