// devplat token: a client-credentials token for an app, as the app itself gets one (oauth4webapi:
// discovery, then the token endpoint with client_secret_basic). Prints the access token alone, so
// it composes: curl -H "Authorization: Bearer $(devplat token svc_... --client-secret-stdin < s)".
import type { Scope } from '@devplat/contract/catalogue';
import * as oauth from 'oauth4webapi';
import type { CommandContext, CommandSpec } from './command.ts';
import { scopeOption } from './option-specs.ts';
import {
  actAsApp,
  baseUrlOption,
  clientIdArg,
  clientSecretSources,
  clientSecretStdinOption,
  publicApiBase,
  requestToken,
} from './public-api.ts';

const appScope: Scope = 'city.public.read';

async function runToken(ctx: CommandContext) {
  const clientId = ctx.args.client_id as string;
  const baseUrl = publicApiBase(ctx);
  const scopes = (ctx.options.scope as string[] | undefined) ?? [appScope];
  const app = await actAsApp(ctx, clientId, baseUrl);
  const asked = new URLSearchParams({ scope: [...new Set(scopes)].join(' ') });
  const tokens = await requestToken(app, 'to issue a token', {
    request: (client, auth, options) => oauth.clientCredentialsGrantRequest(app.as, client, auth, asked, options),
    process: (client, response) => oauth.processClientCredentialsResponse(app.as, client, response),
  });
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
    scopeOption(`Scopes to ask for (default ${appScope}; an app token carries app scopes only)`),
  ],
  description: [
    'devplat token asks the token endpoint for a client-credentials token exactly as your app would ' +
      '(RFC 8414 discovery from --base-url, then client_secret_basic) and prints the access token ' +
      'alone on stdout, so it can be used in a shell: see the example. With --json it prints the whole ' +
      'answer (access_token, token_type, expires_in, scope).',
    clientSecretSources,
  ],
  examples: [
    'TOKEN=$(devplat token svc_... --client-secret-stdin < secret.txt)',
    'curl -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:8080/developer/v1/cities?country=PT"',
  ],
  run: runToken,
};
