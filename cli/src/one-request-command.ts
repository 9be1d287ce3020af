// The commands that make one request to the console and say in a line what it did (revoke, replay,
// disable, ...): with --json, the console's answer as it came instead.
import type { CommandContext, CommandSpec } from './command.ts';
import type { ApiAnswer } from './console-client.ts';

export interface OneRequestSpec<T> extends Omit<CommandSpec, 'run'> {
  /** Checks what the command line asks, then makes the request. */
  request(ctx: CommandContext): Promise<ApiAnswer<T>>;
  /** What the request did, in a line for a person. */
  said(body: T, ctx: CommandContext): string;
}

export function oneRequestCommand<T>({ request, said, ...spec }: OneRequestSpec<T>): CommandSpec {
  return {
    ...spec,
    async run(ctx) {
      const answer = await request(ctx);
      ctx.out.answer(answer.text, () => ctx.out.line(said(answer.body, ctx)));
    },
  };
}
