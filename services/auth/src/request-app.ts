// The app that the token or revocation request being served authenticated as. oidc-provider calls
// our hooks (the Client adapter, compareClientSecret, extraTokenClaims) without the request, but
// inside it: Provider.ctx is that request's context (AsyncLocalStorage). What one hook learns about
// the app, the next one reads here, typed, instead of from the untyped ctx.state bag.
import type { UsableApp } from '@devplat/apps';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

export interface RequestApp {
  /** The usable app the request's client_id names, with its active secret hashes. */
  app: UsableApp;
  /** The secret the request authenticated with, once one matched. */
  clientSecretId?: string;
}

const byRequest = new WeakMap<KoaContextWithOIDC, RequestApp>();

/** The request being served, when a provider hook runs inside one. */
export const currentRequest = (): KoaContextWithOIDC | undefined => Provider.ctx;

export const requestApp = {
  get(): RequestApp | undefined {
    const ctx = currentRequest();
    return ctx && byRequest.get(ctx);
  },
  set(entry: RequestApp): void {
    const ctx = currentRequest();
    if (ctx) byRequest.set(ctx, entry);
  },
};
