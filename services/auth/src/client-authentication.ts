// Client authentication. An app exists for the provider only while it is usable (an active sandbox
// app of an active full developer account, see @devplat/app-directory), and it authenticates with one of its
// active secrets, compared by hash in constant time. Both steps run inside oidc-provider, which is why
// they are shaped as its hooks: the lookup is the Client model's adapter, the check replaces
// Client.prototype.compareClientSecret (the provider would compare plaintext).
import type { AppDirectory } from '@devplat/app-directory';
import { matchingSecret } from '@devplat/keys';
import type { Tracing } from '@devplat/tracing';
import type Provider from 'oidc-provider';
import { currentFacts } from './token-request.ts';

/** The Client model's adapter: client metadata from the app registry, never a secret. */
export function clientAdapter(apps: AppDirectory) {
  const unused = async () => undefined;
  return {
    async find(clientId: string) {
      const app = await apps.find(clientId);
      if (!app) return undefined;
      const facts = currentFacts();
      if (facts) facts.app = app;
      const canRedirect = app.redirectUris.length > 0;
      return {
        client_id: app.clientId,
        client_secret: 'hashed-secrets-are-compared-by-compareClientSecret',
        client_name: app.name,
        grant_types: canRedirect
          ? ['client_credentials', 'authorization_code', 'refresh_token']
          : ['client_credentials'],
        response_types: canRedirect ? ['code'] : [],
        redirect_uris: app.redirectUris,
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'EdDSA',
      };
    },
    upsert: unused,
    consume: unused,
    destroy: unused,
    revokeByGrantId: unused,
    findByUid: unused,
    findByUserCode: unused,
  };
}

/** Secrets are checked against the app's active secret hashes; the one that matched is remembered. */
export function compareHashedSecrets(provider: Provider, apps: AppDirectory, tracing: Tracing): void {
  provider.Client.prototype.compareClientSecret = function compareClientSecret(actual: string) {
    const clientId: string = this.clientId;
    return tracing.span('oauth client authentication', { 'devplat.oauth.client_id': clientId }, async (span) => {
      // The Client adapter loaded this app (with its secret hashes) earlier in the same request.
      const facts = currentFacts();
      const known = facts?.app;
      const app = known?.clientId === clientId ? known : await apps.find(clientId);
      const secret = app ? matchingSecret(actual, app.secrets) : null;
      if (!app || !secret) {
        span.set('devplat.oauth.error', 'invalid_client');
        return false;
      }
      if (facts) {
        facts.app = app;
        facts.clientSecretId = secret.id;
      }
      return true;
    });
  };
}
