// devplat trigger: makes the platform send a real consent event for one of your sandbox players, as
// `stripe trigger` does: the console runs the consent operation the player's Allow or Remove access
// runs (POST /api/apps/{client_id}/triggers), and the app's webhook and devplat listen get the event.
import type { CommandSpec } from './command.ts';
import { clientIdArg } from './public-api.ts';

/** The events devplat trigger can send, as the console's triggers accept them. */
export const triggerableEvents = ['consent.granted', 'consent.revoked'] as const;

interface Triggered {
  event: string;
  client_id: string;
  player: { id: string; username: string };
  sub: string;
  sent: { consent_id: string; event_id: string }[];
}

const tooManyTriggers =
  "Nothing was sent. The limit is your account's, for every session and API key of it: run it again after that wait.";

const trigger: CommandSpec = {
  path: ['trigger'],
  summary: 'Send a real consent.granted or consent.revoked for one of your sandbox players',
  args: [{ name: 'event', description: triggerableEvents.join(' or '), choices: triggerableEvents }, clientIdArg],
  options: [
    {
      name: 'player',
      type: 'string',
      value: '<player>',
      required: true,
      description: 'Your sandbox player, by username or id (devplat players list)',
    },
    {
      name: 'scope',
      type: 'string',
      multiple: true,
      value: '<scope>',
      description: 'consent.granted only: a scope the player allows (default: every player scope the app holds)',
    },
  ],
  description: [
    "consent.granted does what the player's Allow does, without the browser: a new consent with the app, and its " +
      'consent.granted event. consent.revoked does what Remove access under Connected apps does: every active ' +
      'consent of the player with the app ends (reason player_withdrawal), each with its consent.revoked event, ' +
      'and every token under them is refused from the next call.',
    "The events go to the app's webhook URL and to devplat listen, exactly as production sends them. No code or " +
      "token is made for anyone. Sandbox only; each trigger is in the app's history.",
    'An account may send 10 triggers a minute, whatever session or API key sends them; past that, the console ' +
      'refuses them (nothing is sent) and says how long to wait.',
  ],
  examples: [
    'devplat trigger consent.granted svc_... --player alice',
    'devplat trigger consent.revoked svc_... --player alice',
  ],
  async run(ctx) {
    const client = ctx.args.client_id as string;
    const scopes = ctx.options.scope as string[] | undefined;
    const answer = await ctx
      .signedIn()
      .request<Triggered>(
        'POST',
        `/apps/${encodeURIComponent(client)}/triggers`,
        { event: ctx.args.event, player: ctx.options.player, ...(scopes && { scopes }) },
        { TOO_MANY_REQUESTS: tooManyTriggers },
      );
    ctx.out.answer(answer.text, () => {
      const { event, player, sent } = answer.body;
      for (const { consent_id, event_id } of sent) {
        ctx.out.line(`Sent ${event} for ${player.username} with ${client}: event ${event_id} (consent ${consent_id}).`);
      }
      ctx.out.line(
        `Follow it with: devplat deliveries list ${client}   or   devplat listen ${client} --forward-to <url>`,
      );
    });
  },
};

export const triggerCommands: CommandSpec[] = [trigger];
