// apps list/create/show/edit/disable/enable/delete and secrets rotate/revoke.
import { UsageError } from '@devplat/command-line';
import type { AppView } from '@devplat/contract';
import { scopeNames } from '@devplat/contract/catalogue';
import type { ArgumentSpec, CommandContext, CommandSpec, OptionSpec } from './command.ts';
import { oneRequestCommand } from './one-request-command.ts';
import { scopeOption } from './option-specs.ts';
import { type Output, orDash, tableOrNone, when } from './output.ts';
import { defaultRedirectUri, isLoopbackHttp } from './try-defaults.ts';

const clientId: ArgumentSpec = { name: 'client_id', description: "The app's client id (svc_...)" };
const app = (ctx: CommandContext) => encodeURIComponent(ctx.args.client_id as string);

/** --name: apps create requires it, apps edit changes it. */
const nameOption: OptionSpec = {
  name: 'name',
  type: 'string',
  value: '<name>',
  description: 'The name players see on the consent screen',
};

function secretWarning(out: Output, secret: string) {
  out.line();
  out.fields([['Client secret', secret]]);
  out.line('! Save this client secret now: it is shown only once and cannot be retrieved again.');
}

function showApp(out: Output, app: AppView) {
  out.fields([
    ['Client ID', app.client_id],
    ['Name', app.name],
    ['Environment', app.environment],
    ['Status', app.status],
    ['Scopes', app.scopes.join(' ') || '-'],
    ['Redirect URIs', app.redirect_uris.join(', ') || '-'],
    ['Webhook URL', orDash(app.webhook_url)],
    ['Webhook signing secret', orDash(app.webhook_signing_secret)],
    ['Created', when(app.created_at)],
  ]);
  if (app.secrets.length === 0) return;
  out.line();
  out.table(
    ['Secret ID', 'Status', 'Created', 'Revoked'],
    app.secrets.map((secret) => [secret.secret_id, secret.status, when(secret.created_at), when(secret.revoked_at)]),
  );
}

/** The `devplat try` line that fits this app, when it has what try needs. */
function tryHint(app: AppView): string | undefined {
  if (!app.scopes.includes('profile.basic.read')) return undefined;
  const redirect = app.redirect_uris.includes(defaultRedirectUri)
    ? defaultRedirectUri
    : app.redirect_uris.find(isLoopbackHttp);
  if (!redirect) return undefined;
  const option = redirect === defaultRedirectUri ? '' : ` --redirect-uri ${redirect}`;
  return `devplat try ${app.client_id} --client-secret-stdin${option}`;
}

const list: CommandSpec = {
  path: ['apps', 'list'],
  summary: 'List your sandbox apps',
  async run(ctx) {
    const answer = await ctx.signedIn().request<{ data: AppView[] }>('GET', '/apps');
    ctx.out.answer(answer.text, () =>
      tableOrNone(
        ctx.out,
        'No apps yet. Create one with: devplat apps create --name <name> --scope profile.basic.read',
        ['Client ID', 'Name', 'Status', 'Scopes', 'Created'],
        answer.body.data.map((item) => [
          item.client_id,
          item.name,
          item.status,
          item.scopes.join(' ') || '-',
          when(item.created_at),
        ]),
      ),
    );
  },
};

const create: CommandSpec = {
  path: ['apps', 'create'],
  summary: 'Create a sandbox app and show its client secret (once)',
  options: [
    { ...nameOption, required: true },
    {
      name: 'redirect-uri',
      type: 'string',
      value: '<uri>',
      multiple: true,
      description: 'Where players return after the consent screen (up to five)',
    },
    scopeOption(`A scope the app may ask for: ${scopeNames.join(' or ')}`),
    {
      name: 'webhook-url',
      type: 'string',
      value: '<url>',
      description: 'An https endpoint for consent.granted and consent.revoked events',
    },
  ],
  description: [
    'Redirect URIs are matched exactly: https:// with a host, or http://127.0.0.1, http://[::1] or ' +
      `http://localhost on any port. Register ${defaultRedirectUri} to use devplat try with its defaults.`,
    'The client secret is printed once: store it where your app reads its secrets.',
  ],
  examples: [
    `devplat apps create --name "My App" --redirect-uri ${defaultRedirectUri} --scope profile.basic.read`,
    'devplat apps create --name "City Lookup" --scope city.public.read --json',
  ],
  async run(ctx) {
    const answer = await ctx.signedIn().request<{ app: AppView; client_secret: string }>('POST', '/apps', {
      name: ctx.options.name,
      redirect_uris: ctx.options['redirect-uri'] ?? [],
      scopes: ctx.options.scope ?? [],
      ...(ctx.options['webhook-url'] !== undefined ? { webhook_url: ctx.options['webhook-url'] } : {}),
    });
    ctx.out.answer(answer.text, () => {
      const { app, client_secret } = answer.body;
      ctx.out.line(`Created the app "${app.name}" in the ${app.environment}.`);
      ctx.out.line();
      showApp(ctx.out, app);
      secretWarning(ctx.out, client_secret);
      const hint = tryHint(app);
      if (hint) {
        ctx.out.line();
        ctx.out.line('Next: create a sandbox player (devplat players create --username <name>), then try the flow:');
        ctx.out.line(`  ${hint}`);
      }
    });
  },
};

const show: CommandSpec = {
  path: ['apps', 'show'],
  summary: 'Show an app: scopes, redirect URIs, webhook, secrets',
  args: [clientId],
  async run(ctx) {
    const answer = await ctx.signedIn().request<AppView>('GET', `/apps/${app(ctx)}`);
    ctx.out.answer(answer.text, () => showApp(ctx.out, answer.body));
  },
};

/** What a change did to the app, in a line: `Disabled svc_... ("My App"): <effect>`. */
const changed = (done: string, effect: string) => (view: AppView) =>
  `${done} ${view.client_id} ("${view.name}"): ${effect}`;

/** apps disable and enable: what each says, and what it does to the app's tokens. */
const statusChanges = {
  disable: {
    summary: 'Disable an app; its tokens stop on their next use',
    done: 'Disabled',
    effect: 'every token issued to it stops working on its next use.',
  },
  enable: {
    summary: 'Enable a disabled app; its tokens work again',
    done: 'Enabled',
    effect: 'its unexpired tokens work again, and it can get new ones.',
  },
};

function statusCommand(verb: keyof typeof statusChanges): CommandSpec {
  const { summary, done, effect } = statusChanges[verb];
  return oneRequestCommand({
    path: ['apps', verb],
    summary,
    args: [clientId],
    request: (ctx) => ctx.signedIn().request<AppView>('POST', `/apps/${app(ctx)}/${verb}`),
    said: changed(done, effect),
  });
}

const edit: CommandSpec = {
  path: ['apps', 'edit'],
  summary: "Change an app's name, redirect URIs or scopes; its client id stays",
  args: [clientId],
  options: [
    nameOption,
    {
      name: 'redirect-uri',
      type: 'string',
      value: '<uri>',
      multiple: true,
      description: 'The redirect URIs, all of them (up to five): they replace the current list',
    },
    { name: 'no-redirect-uris', type: 'boolean', description: 'Remove every redirect URI (client credentials only)' },
    scopeOption('The scopes, all of them: they replace the current list'),
  ],
  description: [
    'A redirect URI you remove stops matching at once. A scope you remove is granted to no new token; ' +
      'the consents that hold a removed user scope end (the app gets consent.revoked, reason scope_removed), ' +
      'while app tokens already issued keep a removed app scope until they expire (5 minutes).',
  ],
  examples: [
    'devplat apps edit svc_... --name "Weather Guide"',
    'devplat apps edit svc_... --redirect-uri https://example.com/callback --redirect-uri http://127.0.0.1:8976/callback',
  ],
  async run(ctx) {
    const uris = ctx.options['redirect-uri'] as string[] | undefined;
    if (uris && ctx.options['no-redirect-uris'] === true) {
      throw new UsageError('Give --redirect-uri or --no-redirect-uris, not both.');
    }
    const changes = {
      ...(ctx.options.name !== undefined && { name: ctx.options.name }),
      ...(uris && { redirect_uris: uris }),
      ...(ctx.options['no-redirect-uris'] === true && { redirect_uris: [] }),
      ...(ctx.options.scope !== undefined && { scopes: ctx.options.scope }),
    };
    if (Object.keys(changes).length === 0) {
      throw new UsageError('Say what to change: --name, --redirect-uri (or --no-redirect-uris), --scope.');
    }
    const answer = await ctx.signedIn().request<AppView>('PATCH', `/apps/${app(ctx)}`, changes);
    ctx.out.answer(answer.text, () => {
      ctx.out.line(`Saved ${answer.body.client_id} ("${answer.body.name}").`);
      ctx.out.line();
      showApp(ctx.out, answer.body);
    });
  },
};

const remove = oneRequestCommand({
  path: ['apps', 'delete'],
  summary: 'Delete an app for good: its tokens stop, its consents end',
  args: [clientId],
  options: [{ name: 'yes', type: 'boolean', description: 'Confirm: this cannot be undone' }],
  description: [
    'Every token of the app stops on its next call; each active consent ends with a consent.revoked ' +
      'event (reason app_deleted) to its webhook URL; the client id is never used again. ' +
      'To stop an app for a while, use devplat apps disable instead.',
  ],
  examples: ['devplat apps delete svc_... --yes'],
  request(ctx) {
    if (ctx.options.yes !== true) {
      throw new UsageError(
        `Deleting ${ctx.args.client_id} cannot be undone: add --yes (or devplat apps disable to stop it for a while).`,
      );
    }
    return ctx.signedIn().request<AppView>('DELETE', `/apps/${app(ctx)}`);
  },
  said: changed('Deleted', 'its tokens stop on their next use, and its consents have ended.'),
});

const setWebhook = oneRequestCommand({
  path: ['apps', 'set-webhook'],
  summary: "Set or remove an app's webhook URL",
  args: [clientId],
  options: [
    { name: 'url', type: 'string', value: '<url>', description: 'The https endpoint for consent events' },
    { name: 'remove', type: 'boolean', description: 'Remove the webhook URL: no more events are sent' },
  ],
  examples: ['devplat apps set-webhook svc_... --url https://example.com/hooks/consent'],
  request(ctx) {
    const url = ctx.options.url as string | undefined;
    if ((url === undefined) === (ctx.options.remove !== true)) {
      throw new UsageError('Give exactly one of --url <url> or --remove.');
    }
    return ctx.signedIn().request<AppView>('PATCH', `/apps/${app(ctx)}`, { webhook_url: url ?? null });
  },
  said: (view) =>
    view.webhook_url
      ? `Consent events for ${view.client_id} now go to ${view.webhook_url}.`
      : `Removed the webhook URL of ${view.client_id}.`,
});

const rotate: CommandSpec = {
  path: ['secrets', 'rotate'],
  summary: 'Add a client secret; the current one stays active until revoked',
  args: [clientId],
  description: [
    'An app holds at most two active secrets. Deploy the new secret, then revoke the old one with ' +
      'devplat secrets revoke (devplat apps show lists the secret ids).',
  ],
  async run(ctx) {
    const answer = await ctx
      .signedIn()
      .request<{ secret_id: string; client_secret: string }>('POST', `/apps/${app(ctx)}/secrets`, undefined, {
        SECRET_LIMIT:
          'An app holds at most two active secrets: revoke the one your app no longer uses with ' +
          `devplat secrets revoke ${ctx.args.client_id} <secret_id> (devplat apps show ${ctx.args.client_id} lists them).`,
      });
    ctx.out.answer(answer.text, () => {
      ctx.out.line(`Added the secret ${answer.body.secret_id} to ${ctx.args.client_id}.`);
      secretWarning(ctx.out, answer.body.client_secret);
      ctx.out.line();
      ctx.out.line('The previous secret stays active. Once your app uses the new one, revoke the old one:');
      ctx.out.line(
        `  devplat secrets revoke ${ctx.args.client_id} <secret_id>   (devplat apps show ${ctx.args.client_id} lists them)`,
      );
    });
  },
};

const revoke = oneRequestCommand({
  path: ['secrets', 'revoke'],
  summary: 'Revoke a client secret; its tokens stop on their next use',
  args: [clientId, { name: 'secret_id', description: 'The secret to revoke (devplat apps show lists them)' }],
  request(ctx) {
    const secretId = encodeURIComponent(ctx.args.secret_id as string);
    return ctx.signedIn().request('DELETE', `/apps/${app(ctx)}/secrets/${secretId}`);
  },
  said: (_, ctx) =>
    `Revoked the secret ${ctx.args.secret_id} of ${ctx.args.client_id}: tokens obtained with it stop working on their next use.`,
});

export const appCommands = [
  list,
  create,
  show,
  edit,
  setWebhook,
  statusCommand('disable'),
  statusCommand('enable'),
  remove,
  rotate,
  revoke,
];
