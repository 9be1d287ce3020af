// webhooks test, deliveries list/replay: the console's view of an app's webhook deliveries.
import type { DeliveryView as Delivery, DeliveryStatus } from '@devplat/contract';
import type { CommandSpec } from './command.ts';
import { oneRequestCommand } from './one-request-command.ts';
import { filterOption } from './option-specs.ts';
import { orDash, tableOrNone, when } from './output.ts';

const deliveryStatuses = ['failed', 'pending', 'succeeded'] as const satisfies readonly DeliveryStatus[];
const clientId = { name: 'client_id', description: "The app's client id (svc_...)" };

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function lastResult(delivery: Delivery): string {
  if (delivery.last_status_code !== null) return `HTTP ${delivery.last_status_code}`;
  return delivery.last_error ? shorten(delivery.last_error, 40) : '-';
}

const test: CommandSpec = {
  path: ['webhooks', 'test'],
  summary: "Send a signed test event to the app's webhook URL and to devplat listen",
  args: [clientId],
  async run(ctx) {
    const client = ctx.args.client_id as string;
    const answer = await ctx
      .signedIn()
      .request<{ delivery_id: string | null; event_id: string }>(
        'POST',
        `/apps/${encodeURIComponent(client)}/webhooks/test`,
      );
    ctx.out.answer(answer.text, () => {
      if (answer.body.delivery_id === null) {
        ctx.out.line(
          `Sent a signed test event for ${client} (${answer.body.event_id}) to devplat listen (no webhook URL).`,
        );
        return;
      }
      ctx.out.line(`Queued a signed test event for ${client} (delivery ${answer.body.delivery_id}).`);
      ctx.out.line(`Follow it with: devplat deliveries list ${client}`);
    });
  },
};

const list: CommandSpec = {
  path: ['deliveries', 'list'],
  summary: "List an app's webhook deliveries and their state",
  args: [clientId],
  options: [filterOption('status', '<status>', deliveryStatuses, 'Only deliveries in this state')],
  examples: ['devplat deliveries list svc_... --status failed'],
  async run(ctx) {
    const client = ctx.args.client_id as string;
    const status = ctx.options.status as string | undefined;
    const query = status ? `?status=${encodeURIComponent(status)}` : '';
    const answer = await ctx
      .signedIn()
      .request<{ data: Delivery[] }>('GET', `/apps/${encodeURIComponent(client)}/deliveries${query}`);
    ctx.out.answer(answer.text, () => {
      tableOrNone(
        ctx.out,
        `No ${status ? `${status} ` : ''}deliveries for ${client}.`,
        ['Delivery ID', 'Event', 'Status', 'Attempts', 'Last result', 'Created'],
        answer.body.data.map((delivery) => [
          delivery.delivery_id,
          `${delivery.event_type}${delivery.test ? ' (test)' : ''}${delivery.replay_of ? ' (replay)' : ''}`,
          delivery.status,
          String(delivery.attempts),
          lastResult(delivery),
          when(delivery.created_at),
        ]),
      );
      if (answer.body.data.some((delivery) => delivery.status === 'failed')) {
        ctx.out.line();
        ctx.out.line('Replay a failed delivery with: devplat deliveries replay <delivery_id>');
      }
    });
  },
};

const replay = oneRequestCommand({
  path: ['deliveries', 'replay'],
  summary: 'Send a failed delivery again (the replay is audited)',
  args: [{ name: 'delivery_id', description: 'A failed delivery (devplat deliveries list --status failed)' }],
  request(ctx) {
    const id = encodeURIComponent(ctx.args.delivery_id as string);
    return ctx.signedIn().request<{ delivery_id: string }>('POST', `/deliveries/${id}/replay`);
  },
  said: (queued, ctx) => `Queued a replay of ${ctx.args.delivery_id} (delivery ${orDash(queued?.delivery_id)}).`,
});

export const webhookCommands = [test, list, replay];
