// The public API as an app sees it, for the commands that act as one (try, token): where it is,
// its authorization server metadata (RFC 8414 discovery with oauth4webapi), its token endpoint
// called as the app, and the words for what can go wrong on the way.
import { UsageError } from '@devplat/command-line';
import * as oauth from 'oauth4webapi';
import type { CommandContext } from './command.ts';
import { networkReason, problemOf } from './console-client.ts';
import { FailureError, failure } from './errors.ts';
import { readSecret } from './secret-input.ts';
import { defaultBaseUrl, isLocalHttp } from './try-defaults.ts';

export const requestTimeoutMs = 30_000;

/** oauth4webapi refuses plain http unless told; allowed only for an API on this machine. */
export type Insecure = { [oauth.allowInsecureRequests]: boolean };

const insecureFor = (baseUrl: string): Insecure => ({
  [oauth.allowInsecureRequests]: new URL(baseUrl).protocol === 'http:',
});

/** --base-url, else DEVPLAT_BASE_URL, else npm start's: https, or http on this machine. */
export function publicApiBase(ctx: CommandContext): string {
  const base = (ctx.options['base-url'] as string | undefined) ?? ctx.io.env.DEVPLAT_BASE_URL ?? defaultBaseUrl;
  let baseUrl: URL;
  try {
    baseUrl = new URL(base);
  } catch {
    throw new UsageError(`--base-url must be a URL like ${defaultBaseUrl} (got "${base}").`);
  }
  if (baseUrl.protocol !== 'https:' && !isLocalHttp(base)) {
    throw new UsageError(
      '--base-url must use https unless the API is on this machine (127.0.0.x, [::1] or localhost).',
    );
  }
  return baseUrl.href.replace(/\/$/, '');
}

export const baseUrlOption = {
  name: 'base-url',
  type: 'string',
  value: '<url>',
  description: `The public API (env DEVPLAT_BASE_URL, default ${defaultBaseUrl})`,
} as const;

export const clientIdArg = { name: 'client_id', description: "Your app's client id (svc_...)" } as const;

export const clientSecretStdinOption = {
  name: 'client-secret-stdin',
  type: 'boolean',
  description: "Read the app's client secret from the first line of stdin",
} as const;

/** Where readClientSecret looks, as the help of the commands that read it says. */
export const clientSecretSources =
  'The client secret is read from the first line of stdin with --client-secret-stdin, or from ' +
  'DEVPLAT_CLIENT_SECRET, or typed at a hidden prompt; never taken as an argument.';

/** The app's secret: stdin with --client-secret-stdin, else DEVPLAT_CLIENT_SECRET, else a hidden prompt. */
const readClientSecret = (ctx: CommandContext, clientId: string) =>
  readSecret(ctx.io, {
    what: 'client secret',
    fromStdin: ctx.options['client-secret-stdin'] === true,
    stdinFlag: '--client-secret-stdin',
    envName: 'DEVPLAT_CLIENT_SECRET',
    prompt: `Client secret of ${clientId}: `,
  });

export function unreachable(what: string, url: string, error: unknown): FailureError {
  return failure(
    'API_UNREACHABLE',
    'Public API unreachable',
    `Cannot reach ${what} at ${url} (${networkReason(error, requestTimeoutMs)}): is \`npm start\` running? ` +
      '(Elsewhere: --base-url or DEVPLAT_BASE_URL.)',
  );
}

async function discover(baseUrl: string, insecure: Insecure): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl);
  let response: Response;
  try {
    response = await oauth.discoveryRequest(issuer, {
      algorithm: 'oauth2',
      ...insecure,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
  } catch (error) {
    throw unreachable('the public API', baseUrl, error);
  }
  if (!response.ok) throw new FailureError(problemOf(response, await response.text(), 'the authorization server'));
  try {
    return await oauth.processDiscoveryResponse(issuer, response);
  } catch (error) {
    throw failure(
      'DISCOVERY_FAILED',
      'Discovery failed',
      `The authorization server metadata of ${baseUrl} is not usable: ${(error as Error).message}.`,
    );
  }
}

/** What a command acting as the app holds: its client id and secret, and the server it discovered. */
export interface ActingApp {
  clientId: string;
  secret: string;
  as: oauth.AuthorizationServer;
  insecure: Insecure;
}

/** Reads the app's secret, then discovers the authorization server of the public API at `baseUrl`. */
export async function actAsApp(ctx: CommandContext, clientId: string, baseUrl: string): Promise<ActingApp> {
  const secret = await readClientSecret(ctx, clientId);
  const insecure = insecureFor(baseUrl);
  return { clientId, secret, as: await discover(baseUrl, insecure), insecure };
}

/** Text from the network, safe for a terminal: no control characters, bounded. */
export const clean = (text: string | undefined) => (text ?? '').replace(/\p{Cc}/gu, ' ').slice(0, 300);

/** A refusal at the token endpoint, in words: which client, what it said. */
function tokenRefused(clientId: string, error: string, description: string | undefined, what: string) {
  const said = clean(description);
  const explanation =
    error === 'invalid_client'
      ? `The token endpoint refused the client secret of ${clientId} (invalid_client): pass its current secret.`
      : `The token endpoint refused ${what} (${clean(error)}).`;
  return failure('TOKEN_REFUSED', 'Token refused', `${explanation}${said ? ` It said: "${said}".` : ''}`);
}

/** Reads a token endpoint answer with oauth4webapi's `process`, turning its refusals into words. */
async function tokenAnswer<T>(clientId: string, what: string, process: () => Promise<T>): Promise<T> {
  try {
    return await process();
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError)
      throw tokenRefused(clientId, error.error, error.error_description, what);
    if (error instanceof oauth.WWWAuthenticateChallengeError) {
      // A 401 invalid_client comes with a challenge; its body still says why.
      const body = (await error.response.json().catch(() => ({}))) as { error?: string; error_description?: string };
      throw tokenRefused(clientId, body.error ?? 'invalid_client', body.error_description, what);
    }
    throw failure('TOKEN_REFUSED', 'Token refused', `The token answer is not usable: ${(error as Error).message}.`);
  }
}

/** A grant at the token endpoint, with oauth4webapi: its request, and the `process` that reads its answer. */
export interface TokenGrant {
  request(client: oauth.Client, auth: oauth.ClientAuth, options: oauth.TokenEndpointRequestOptions): Promise<Response>;
  process(client: oauth.Client, response: Response): Promise<oauth.TokenEndpointResponse>;
}

/**
 * Asks the token endpoint for a grant as the app (client_secret_basic). Both an unreachable endpoint
 * and a refusal come back in words; `what` says what was asked for ("to issue a token").
 */
export async function requestToken(
  app: ActingApp,
  what: string,
  grant: TokenGrant,
): Promise<oauth.TokenEndpointResponse> {
  const client = { client_id: app.clientId };
  let response: Response;
  try {
    response = await grant.request(client, oauth.ClientSecretBasic(app.secret), {
      ...app.insecure,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
  } catch (error) {
    throw unreachable('the token endpoint', String(app.as.token_endpoint), error);
  }
  return tokenAnswer(app.clientId, what, () => grant.process(client, response));
}
