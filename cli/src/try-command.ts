// devplat try: the quick start's last step. The CLI acts as the developer's app with oauth4webapi:
// discovery, an authorization URL with PKCE (S256) and state, the redirect received on a loopback
// redirect URI, state and iss checked, the code redeemed, and GET /me called with the token.
import { UsageError } from '@devplat/command-line';
import type { AppView } from '@devplat/contract';
import type { Scope } from '@devplat/contract/catalogue';
import * as oauth from 'oauth4webapi';
import { listenForCallback } from './callback-server.ts';
import type { CommandContext, CommandSpec } from './command.ts';
import { problemOf } from './console-client.ts';
import { CliError, FailureError, failure, NotSignedInError } from './errors.ts';
import { browserOpener, openBrowser } from './open-browser.ts';
import { scopeOption } from './option-specs.ts';
import {
  type ActingApp,
  actAsApp,
  baseUrlOption,
  clean,
  clientIdArg,
  clientSecretSources,
  clientSecretStdinOption,
  type Insecure,
  publicApiBase,
  requestTimeoutMs,
  requestToken,
  unreachable,
} from './public-api.ts';
import { defaultRedirectUri, isLoopbackHttp } from './try-defaults.ts';

const profileScope: Scope = 'profile.basic.read';

interface TrySettings {
  clientId: string;
  baseUrl: string;
  redirectUri: URL;
  timeoutSeconds: number;
  /** Asked for explicitly with --scope; otherwise the app's scopes, or profile.basic.read. */
  scopes?: string[];
}

function settings(ctx: CommandContext): TrySettings {
  const baseUrl = publicApiBase(ctx);
  const redirect = (ctx.options['redirect-uri'] as string | undefined) ?? defaultRedirectUri;
  if (!isLoopbackHttp(redirect)) {
    throw new UsageError(
      `--redirect-uri must be http://127.0.0.1, http://[::1] or http://localhost with a port (got "${redirect}"): ` +
        'devplat try listens there for the browser.',
    );
  }
  const timeout = (ctx.options.timeout as string | undefined) ?? '300';
  if (!/^[1-9]\d{0,5}$/.test(timeout))
    throw new UsageError(`--timeout must be a whole number of seconds (got "${timeout}").`);
  const scopes = ctx.options.scope as string[] | undefined;
  if (scopes && !scopes.includes(profileScope)) {
    throw new UsageError(`--scope must include ${profileScope}: devplat try calls GET /me, which needs it.`);
  }
  return {
    clientId: ctx.args.client_id as string,
    baseUrl,
    redirectUri: new URL(redirect),
    timeoutSeconds: Number(timeout),
    ...(scopes ? { scopes: [...new Set(scopes)] } : {}),
  };
}

/**
 * Looks the app up in the console, when signed in, to catch early what the consent screen would
 * refuse without ever coming back (an unregistered redirect URI). Returns the app's scopes.
 */
async function checkApp(ctx: CommandContext, s: TrySettings): Promise<string[] | undefined> {
  let app: AppView;
  try {
    app = (await ctx.signedIn().request<AppView>('GET', `/apps/${encodeURIComponent(s.clientId)}`)).body;
  } catch (error) {
    if (error instanceof FailureError && error.problem.code === 'NOT_FOUND') throw error;
    if (!(error instanceof CliError || error instanceof UsageError)) throw error;
    const why =
      error instanceof NotSignedInError
        ? 'not signed in to the console'
        : error instanceof UsageError
          ? error.message
          : error.problem.detail;
    ctx.out.note(`Note: the app's redirect URIs and scopes are not checked first (${why}).`);
    return undefined;
  }
  if (app.status !== 'active') {
    throw failure('APP_NOT_ACTIVE', 'App not active', `The app ${s.clientId} is ${app.status}: it cannot get tokens.`);
  }
  if (!app.redirect_uris.includes(s.redirectUri.href)) {
    const loopback = app.redirect_uris.filter(isLoopbackHttp);
    throw failure(
      'REDIRECT_URI_NOT_REGISTERED',
      'Redirect URI not registered',
      `The app ${s.clientId} does not have ${s.redirectUri.href} among its redirect URIs, so the consent ` +
        'screen would refuse to send the player back to devplat try.',
      [
        loopback.length
          ? `Pass one it has: --redirect-uri ${loopback[0]}`
          : `It has no http://127.0.0.1 redirect URI devplat try could listen on (it has: ${app.redirect_uris.join(', ') || 'none'}).`,
        `Or create an app that has it: devplat apps create --name <name> --redirect-uri ${s.redirectUri.href} --scope ${profileScope}`,
      ],
    );
  }
  if (!app.scopes.includes(profileScope)) {
    throw failure(
      'SCOPE_NOT_GRANTED',
      'Scope not granted',
      `The app ${s.clientId} does not have the scope ${profileScope}, which GET /me needs.`,
      [
        `Create an app that has it: devplat apps create --name <name> --redirect-uri ${s.redirectUri.href} --scope ${profileScope}`,
      ],
    );
  }
  return app.scopes;
}

const authorizationErrors: Record<string, string> = {
  access_denied: 'The player did not allow access (access_denied): Not now was pressed, or the consent screen expired.',
  invalid_scope: 'The consent screen refused the scopes asked for (invalid_scope).',
  invalid_request: 'The consent screen refused the request (invalid_request).',
  unsupported_response_type: 'The consent screen refused the response type (unsupported_response_type).',
};

/** Checks iss and state, and turns an error redirect into words. Returns the callback parameters. */
function checkCallback(as: oauth.AuthorizationServer, s: TrySettings, callback: URL, state: string): URLSearchParams {
  const iss = callback.searchParams.get('iss');
  if (iss !== as.issuer) {
    throw failure(
      'ISSUER_MISMATCH',
      'Wrong issuer',
      `The redirect came back with iss ${iss === null ? 'missing' : `"${clean(iss)}"`}, not ${as.issuer}: ` +
        'it did not come from the authorization server devplat try asked.',
    );
  }
  try {
    return oauth.validateAuthResponse(as, { client_id: s.clientId }, callback, state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      const said = clean(error.error_description);
      throw failure(
        'AUTHORIZATION_REFUSED',
        'Authorization refused',
        `${authorizationErrors[error.error] ?? `The consent screen answered ${clean(error.error)}.`}` +
          (said ? ` It said: "${said}".` : ''),
      );
    }
    throw failure(
      'STATE_MISMATCH',
      'State mismatch',
      'The redirect does not carry the state devplat try sent: it belongs to another authorization. ' +
        'Open the address this run printed.',
    );
  }
}

function redeem(app: ActingApp, s: TrySettings, params: URLSearchParams, verifier: string) {
  return requestToken(app, 'to redeem the code', {
    request: (client, auth, options) =>
      oauth.authorizationCodeGrantRequest(app.as, client, auth, params, s.redirectUri.href, verifier, options),
    process: (client, response) => oauth.processAuthorizationCodeResponse(app.as, client, response),
  });
}

async function callMe(s: TrySettings, accessToken: string, insecure: Insecure) {
  const url = `${s.baseUrl}/me`;
  let response: Response;
  try {
    response = await oauth.protectedResourceRequest(accessToken, 'GET', new URL(url), undefined, undefined, {
      ...insecure,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
  } catch (error) {
    if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw unreachable('GET /me', url, error);
    response = error.response;
  }
  const text = await response.text();
  if (!response.ok) throw new FailureError(problemOf(response, text, 'GET /me'));
  return { text, body: JSON.parse(text) as { sub: string; display_name: string | null } };
}

async function waitForBrowser(received: Promise<URL>, s: TrySettings): Promise<URL> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          failure('TIMED_OUT', 'Timed out', `No answer reached ${s.redirectUri.href} within ${s.timeoutSeconds} s.`, [
            'Open the address within --timeout seconds, or raise --timeout.',
            'If the consent screen said the app cannot connect, the redirect URI is not registered for the app.',
          ]),
        ),
      s.timeoutSeconds * 1000,
    );
  });
  try {
    return await Promise.race([received, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

async function runTry(ctx: CommandContext) {
  const s = settings(ctx);
  const appScopes = await checkApp(ctx, s);
  const app = await actAsApp(ctx, s.clientId, s.baseUrl);
  const scopes = s.scopes ?? appScopes ?? [profileScope];
  const { as } = app;

  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorizationUrl = new URL(String(as.authorization_endpoint));
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: s.clientId,
    redirect_uri: s.redirectUri.href,
    scope: scopes.join(' '),
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  })) {
    authorizationUrl.searchParams.set(name, value);
  }

  const server = await listenForCallback(s.redirectUri);
  let callback: URL;
  try {
    // Always on stderr, --json or not: stdout keeps only the result.
    const opener = ctx.options['no-browser'] === true ? null : browserOpener(authorizationUrl.href, ctx.io.env);
    const opened = opener !== null && (await openBrowser(opener));
    ctx.io.stderr.write(
      `${opened ? `Opened your browser (${opener.command}) at this address; if it did not appear, open it yourself.` : 'Open this address in a browser.'}\n` +
        'Sign in as one of your sandbox players (devplat players list) and press Allow:\n\n' +
        `  ${authorizationUrl.href}\n\n` +
        `Waiting up to ${s.timeoutSeconds} s for the browser to come back to ${s.redirectUri.href} (Ctrl-C to stop)...\n`,
    );
    callback = await waitForBrowser(server.received, s);
  } finally {
    await server.close();
  }
  const params = checkCallback(as, s, callback, state);
  ctx.out.note('The browser came back: redeeming the code and calling GET /me...');
  const tokens = await redeem(app, s, params, verifier);
  const me = await callMe(s, tokens.access_token, app.insecure);
  const showTokens = ctx.options['show-tokens'] === true;

  if (ctx.json) {
    ctx.out.document({
      me: me.body,
      scope: tokens.scope ?? scopes.join(' '),
      expires_in: tokens.expires_in,
      ...(showTokens ? { access_token: tokens.access_token, refresh_token: tokens.refresh_token } : {}),
    });
    return;
  }
  ctx.out.line(`The player allowed ${s.clientId}. GET /me answered:`);
  ctx.out.line();
  ctx.out.fields(
    Object.entries(me.body).map(([name, value]) => [name, value === null ? 'null' : String(value)]),
    '  ',
  );
  ctx.out.line();
  const lifetime = `expires in ${tokens.expires_in ?? '?'} s`;
  ctx.out.fields([
    ['Scopes', tokens.scope ?? scopes.join(' ')],
    ...((showTokens
      ? [
          ['Access token', `${tokens.access_token} (${lifetime})`],
          ['Refresh token', tokens.refresh_token ?? '-'],
        ]
      : [['Access token', `${lifetime} (add --show-tokens to print it and the refresh token)`]]) as [string, string][]),
  ]);
}

export const tryCommand: CommandSpec = {
  path: ['try'],
  summary: 'Act as your app: consent, code, token, then GET /me',
  args: [clientIdArg],
  options: [
    clientSecretStdinOption,
    baseUrlOption,
    {
      name: 'redirect-uri',
      type: 'string',
      value: '<uri>',
      description: `Where to receive the browser; one of the app's redirect URIs (default ${defaultRedirectUri})`,
    },
    scopeOption(`Scopes to ask for (default: the app's); must include ${profileScope}`),
    {
      name: 'timeout',
      type: 'string',
      value: '<seconds>',
      description: 'How long to wait for the browser (default 300)',
    },
    { name: 'show-tokens', type: 'boolean', description: 'Also print the access and refresh tokens' },
    {
      name: 'no-browser',
      type: 'boolean',
      description: 'Only print the address; do not open a browser (BROWSER names which one opens)',
    },
  ],
  description: [
    'devplat try discovers the authorization server from --base-url, prints an authorization address ' +
      '(PKCE S256 and state) and opens it in your browser where there is one (BROWSER, or open, ' +
      'xdg-open under a display, or the Windows URL handler), and listens on --redirect-uri, which must be one of ' +
      "the app's registered redirect URIs. Sign in as a sandbox player and press Allow: devplat try " +
      'checks the state and issuer of the redirect, redeems the code with the client secret, calls ' +
      'GET /me with the access token, and prints the answer with the scopes granted.',
    `${clientSecretSources} Tokens are not printed unless --show-tokens is given.`,
  ],
  examples: [
    'devplat try svc_... --client-secret-stdin < secret.txt',
    'DEVPLAT_CLIENT_SECRET=... devplat try svc_... --redirect-uri http://127.0.0.1:9000/cb --json',
  ],
  run: runTry,
};
