import type { Config } from '@devplat/config';
import { scopeNames } from '@devplat/contract';

/** RFC 8414 metadata: exactly the contract's fields, no others. */
export function authorizationServerMetadata(config: Config) {
  const base = config.baseUrl.href;
  const methods = ['client_secret_basic', 'client_secret_post'];
  return {
    issuer: base,
    authorization_endpoint: new URL('/oauth/authorize', config.playerClientUrl).href,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_methods_supported: methods,
    scopes_supported: scopeNames,
  };
}
