// devplat token: a client-credentials token for an app, as the app itself gets one (oauth4webapi:
// discovery, then the token endpoint with client_secret_basic). Prints the access token alone, so
// it composes: curl -H "Authorization: Bearer $(devplat token svc_... --client-secret-stdin < s)".
import { type Scope, scopeNames } from '@devplat/contract/catalogue';
import * as oauth from 'oauth4webapi';
import type { CommandContext, CommandSpec } from './command.ts';
import {
  baseUrlOption,
  clientIdArg,
  clientSecretStdinOption,
  discover,
  insecureFor,
  publicApiBase,
  readClientSecret,
  requestTimeoutMs,
  tokenAnswer,
  unreachable,
} from './public-api.ts';

const appScope: Scope = 'city.public.read';

async function runToken(ctx: CommandContext) {
  const clientId = ctx.args.client_id as string;
  const baseUrl = publicApiBase(ctx);
  const scopes = (ctx.options.scope as string[] | undefined) ?? [appScope];
  const secret = await readClientSecret(ctx, clientId);
  const insecure = insecureFor(baseUrl);
  const as = await discover(baseUrl, insecure);
  const client = { client_id: clientId };
  let response: Response;
  try {
    response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(secret),
      new URLSearchParams({ scope: [...new Set(scopes)].join(' ') }),
      { ...insecure, signal: AbortSignal.timeout(requestTimeoutMs) },
    );
  } catch (error) {
    throw unreachable('the token endpoint', String(as.token_endpoint), error);
  }
  const tokens = await tokenAnswer(clientId, 'to issue a token', () =>
    oauth.processClientCredentialsResponse(as, client, response),
  );
  if (ctx.json) {
    ctx.out.document({
      access_token: tokens.access_token,
      token_type: tokens.token_type,
      expires_in: tokens.expires_in,
      scope: tokens.scope,
    });
    return;
  }
  // The token alone on stdout, for $(...); what it is on stderr.
  ctx.io.stdout.write(`${tokens.access_token}\n`);
  ctx.out.note(
    `An app token for ${clientId}: scope ${tokens.scope ?? scopes.join(' ')}, expires in ${tokens.expires_in ?? '?'} s.`,
  );
}

export const tokenCommand: CommandSpec = {
  path: ['token'],
  summary: 'Get a client-credentials token for your app (prints the access token)',
  args: [clientIdArg],
  options: [
    clientSecretStdinOption,
    baseUrlOption,
    {
      name: 'scope',
      type: 'string',
      value: '<scope>',
      multiple: true,
      choices: scopeNames,
      description: `Scopes to ask for (default ${appScope}; an app token carries app scopes only)`,
    },
  ],
  description: [
    'devplat token asks the token endpoint for a client-credentials token exactly as your app would ' +
      '(RFC 8414 discovery from --base-url, then client_secret_basic) and prints the access token ' +
      'alone on stdout, so it can be used in a shell: see the example. With --json it prints the whole ' +
      'answer (access_token, token_type, expires_in, scope).',
    'The client secret is read from the first line of stdin with --client-secret-stdin, or from ' +
      'DEVPLAT_CLIENT_SECRET, or typed at a hidden prompt; never taken as an argument.',
  ],
  examples: [
    'TOKEN=$(devplat token svc_... --client-secret-stdin < secret.txt)',
    'curl -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:8080/developer/v1/cities?country=PT"',
  ],
  run: runToken,
};
