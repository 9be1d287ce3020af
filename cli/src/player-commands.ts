// players list/create/disable/enable: the synthetic sandbox players a developer signs in as on the
// consent screen.
import { UsageError } from '@devplat/command-line';
import type { PlayerPageView, PlayerView } from '@devplat/contract';
import type { CommandContext, CommandSpec } from './command.ts';
import { oneRequestCommand } from './one-request-command.ts';
import { requiredOption } from './option-specs.ts';
import { orDash, tableOrNone, when } from './output.ts';
import { passwordSources, passwordStdinOption, readNewPassword } from './password-input.ts';

/**
 * The developer's players, oldest first, a page of the console API's largest size at a time:
 * GET /sandbox-players is paged, and each page's next_cursor asks for the next.
 */
async function* playerPages(ctx: CommandContext): AsyncGenerator<PlayerView[]> {
  let cursor: string | null = null;
  do {
    const query: string = new URLSearchParams({ limit: '200', ...(cursor !== null && { cursor }) }).toString();
    const { body }: { body: PlayerPageView } = await ctx
      .signedIn()
      .request<PlayerPageView>('GET', `/sandbox-players?${query}`);
    yield body.data;
    cursor = body.next_cursor;
  } while (cursor !== null);
}

const list: CommandSpec = {
  path: ['players', 'list'],
  summary: 'List your sandbox players',
  description: [
    'Every player, oldest first: the console API answers a page at a time, and this follows each ' +
      "page's next_cursor to the last. With --json, one document of them all: " +
      '{"data": [...], "next_cursor": null}.',
  ],
  async run(ctx) {
    const players: PlayerView[] = [];
    for await (const page of playerPages(ctx)) players.push(...page);
    const whole: PlayerPageView = { data: players, next_cursor: null };
    ctx.out.answer(JSON.stringify(whole), () =>
      tableOrNone(
        ctx.out,
        'No sandbox players yet. Create one with: devplat players create --username <username>',
        ['Username', 'Display name', 'Status', 'ID', 'Created'],
        players.map((player) => [
          player.username,
          orDash(player.display_name),
          player.status,
          player.id,
          when(player.created_at),
        ]),
      ),
    );
  },
};

const create: CommandSpec = {
  path: ['players', 'create'],
  summary: 'Create a sandbox player to sign in with on the consent screen',
  options: [
    requiredOption('username', '<username>', '3 to 32 characters: lower-case letters, digits, and _ . -'),
    { name: 'display-name', type: 'string', value: '<name>', description: 'The name GET /me answers (optional)' },
    passwordStdinOption,
  ],
  description: [
    passwordSources("The player's password"),
    'Sandbox players are synthetic: they exist only in the sandbox and belong to your account.',
  ],
  examples: ['devplat players create --username ada --display-name "Ada"'],
  async run(ctx) {
    const password = await readNewPassword(ctx, `Password for the player ${ctx.options.username}: `);
    const answer = await ctx.signedIn().request<PlayerView>('POST', '/sandbox-players', {
      username: ctx.options.username,
      password,
      ...(ctx.options['display-name'] !== undefined ? { display_name: ctx.options['display-name'] } : {}),
    });
    ctx.out.answer(answer.text, () => {
      ctx.out.line(`Created the sandbox player ${answer.body.username} (${answer.body.id}).`);
      ctx.out.line('Sign in as this player on the consent screen, e.g. when you run devplat try.');
    });
  },
};

/** The player the argument names: its id, or its username as players list shows it. */
async function playerId(ctx: CommandContext): Promise<string> {
  const given = ctx.args.player as string;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(given)) return given;
  for await (const page of playerPages(ctx)) {
    const found = page.find((player) => player.username === given);
    if (found) return found.id;
  }
  throw new UsageError(`You have no sandbox player ${given} (devplat players list shows them).`);
}

function statusCommand(verb: 'disable' | 'enable'): CommandSpec {
  return oneRequestCommand({
    path: ['players', verb],
    summary:
      verb === 'disable'
        ? 'Disable a sandbox player: their tokens answer 403 ACCESS_DENIED, and they cannot sign in'
        : 'Enable a disabled sandbox player again',
    args: [{ name: 'player', description: 'The username or id (devplat players list shows both)' }],
    examples: [`devplat players ${verb} ada`],
    async request(ctx) {
      const id = encodeURIComponent(await playerId(ctx));
      return ctx.signedIn().request<PlayerView>('POST', `/sandbox-players/${id}/${verb}`);
    },
    said: (player) =>
      verb === 'disable'
        ? `Disabled ${player.username}: every token of theirs answers 403 ACCESS_DENIED from its next call; their consents stand.`
        : `Enabled ${player.username}: their tokens work again.`,
  });
}

export const playerCommands = [list, create, statusCommand('disable'), statusCommand('enable')];
