// The app side of the tests: oauth4webapi against a running platform, over plain http.
import * as oauth from 'oauth4webapi';

/** oauth4webapi refuses http unless told: the test platforms run on loopback http. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** RFC 8414 discovery as a real client does it (the path-inserted location). */
export async function discover(base: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(base);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
}

/** client_secret_basic's Authorization header value. */
export function basicAuth(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
}

/** POST /oauth/revoke with client_secret_basic; resolves with the raw response. */
export function revokeToken(base: string, client: { clientId: string; clientSecret: string }, token: string) {
  return fetch(`${base}/oauth/revoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(client.clientId, client.clientSecret),
    },
    body: new URLSearchParams({ token }),
  });
}
