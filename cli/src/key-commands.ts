// devplat keys create/list/revoke: API keys for scripts and CI (issue 29 item 2). Only a signed-in
// session may manage keys, so these pass over DEVPLAT_API_KEY and --api-key-stdin. The key is
// printed once, by create; nothing else ever shows it.
import { UsageError } from '@devplat/command-line';
import { type ApiKeyView, apiKeyLimits, apiKeyScopes, type CreatedApiKeyView } from '@devplat/contract';
import type { CommandContext, CommandSpec } from './command.ts';
import { oneRequestCommand } from './one-request-command.ts';
import { requiredOption } from './option-specs.ts';
import { tableOrNone, when } from './output.ts';

const sessionOnly = { sessionOnly: true };

/** --expires-in-days as a number, within the console's rule; undefined when not given. */
function expiresInDays(ctx: CommandContext): number | undefined {
  const given = ctx.options['expires-in-days'] as string | undefined;
  if (given === undefined) return undefined;
  const days = /^[0-9]{1,4}$/.test(given) ? Number(given) : Number.NaN;
  if (!(days >= 1 && days <= apiKeyLimits.maxDays)) {
    throw new UsageError(
      `--expires-in-days must be a whole number of days from 1 to ${apiKeyLimits.maxDays} (got "${given}").`,
      ['keys', 'create'],
    );
  }
  return days;
}

const create: CommandSpec = {
  path: ['keys', 'create'],
  summary: 'Create an API key for scripts and CI and show it (once)',
  options: [
    requiredOption('name', '<name>', 'What the key is for, e.g. "CI deploy"'),
    requiredOption(
      'scope',
      '<scope>',
      'read: GET calls only, no webhook signing secret; write: also changes',
      apiKeyScopes,
    ),
    {
      name: 'expires-in-days',
      type: 'string',
      value: '<days>',
      description: `Its lifetime: 1 to ${apiKeyLimits.maxDays} days (default ${apiKeyLimits.defaultDays})`,
    },
  ],
  description: [
    'An API key lets a script, a CI job or devplat itself use the console as you, without your password: ' +
      'set DEVPLAT_API_KEY, or pipe it to any command with --api-key-stdin. A read key may list and read ' +
      '(apps, deliveries, history, players, devplat listen) and never sees a webhook signing secret; a write key ' +
      'may also change what you can. No key can create, list or revoke keys, or sign out: that takes your ' +
      'signed-in session (devplat login), which these commands always use.',
    "The key is printed once: store it where your script reads its secrets. With --json the console's " +
      'answer, the key included, is printed.',
  ],
  examples: [
    'devplat keys create --name "CI deploy" --scope write --expires-in-days 90',
    'devplat keys create --name nightly-report --scope read --json | jq -r .key > report.key',
  ],
  async run(ctx) {
    const days = expiresInDays(ctx);
    const answer = await ctx.signedIn(sessionOnly).request<CreatedApiKeyView>('POST', '/api-keys', {
      name: ctx.options.name,
      scope: ctx.options.scope,
      ...(days !== undefined && { expires_in_days: days }),
    });
    ctx.out.answer(answer.text, () => {
      const { api_key: key } = answer.body;
      ctx.out.line(`Created the API key "${key.name}" (${key.scope}), valid until ${when(key.expires_at)}.`);
      ctx.out.line();
      ctx.out.fields([
        ['ID', key.id],
        ['API key', answer.body.key],
      ]);
      ctx.out.line('! Save this API key now: it is shown only once and cannot be retrieved again.');
      ctx.out.line();
      ctx.out.line(
        'Use it: DEVPLAT_API_KEY=<key> devplat apps list   (or: devplat apps list --api-key-stdin < key-file)',
      );
      ctx.out.line(`Revoke it: devplat keys revoke ${key.id}`);
    });
  },
};

const list: CommandSpec = {
  path: ['keys', 'list'],
  summary: 'List your API keys: name, scope, when each expires and was last used',
  description: [
    'Every key neither revoked nor expired, and those revoked or expired in the last 30 days, newest first. ' +
      'A key is shown by its last four characters, never whole. Last used is noted at most about once a minute.',
  ],
  async run(ctx) {
    const answer = await ctx.signedIn(sessionOnly).request<{ data: ApiKeyView[] }>('GET', '/api-keys');
    ctx.out.answer(answer.text, () =>
      tableOrNone(
        ctx.out,
        'No API keys. Create one with: devplat keys create --name <name> --scope read',
        ['ID', 'Name', 'Scope', 'Key', 'Status', 'Created', 'Expires', 'Last used'],
        answer.body.data.map((key) => [
          key.id,
          key.name,
          key.scope,
          `...${key.hint}`,
          key.status,
          when(key.created_at),
          when(key.expires_at),
          key.last_used_at ? when(key.last_used_at) : 'never',
        ]),
      ),
    );
  },
};

const revoke = oneRequestCommand({
  path: ['keys', 'revoke'],
  summary: 'Revoke an API key: it is refused from its next call',
  args: [{ name: 'id', description: 'The key to revoke (devplat keys list shows the ids)' }],
  request: (ctx) =>
    ctx.signedIn(sessionOnly).request('DELETE', `/api-keys/${encodeURIComponent(ctx.args.id as string)}`, undefined, {
      NOT_FOUND: 'devplat keys list shows the ids of your keys.',
    }),
  said: (_, ctx) => `Revoked the API key ${ctx.args.id}: it is refused from its next call.`,
});

export const keyCommands: CommandSpec[] = [create, list, revoke];
