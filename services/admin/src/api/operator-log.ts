// Every request line of the admin API names the operator whose token it carried. The envelope
// (@devplat/http) writes that line after the handlers are done, from the logger it was given; so
// each request gets a slot for the name when it arrives (AsyncLocalStorage, which follows the
// request through every await), the guard fills it, and the API's logger adds it to each line
// logged while the request is served: the request line, and any other.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestListener } from 'node:http';
import type { Logger } from '@devplat/http';

const requests = new AsyncLocalStorage<{ operator?: string }>();

/** The listener of the admin app, giving each request its slot. */
export const withOperatorSlot =
  (listener: RequestListener): RequestListener =>
  (request, response) =>
    requests.run({}, () => listener(request, response));

/** Names the operator of the request being served. */
export function nameOperator(name: string): void {
  const slot = requests.getStore();
  if (slot) slot.operator = name;
}

/** `logger`, with `operator` on every line logged while a named request is served. */
export function operatorLogger(logger: Logger): Logger {
  return logger.child(
    {},
    {
      formatters: {
        log: (line) => {
          const operator = requests.getStore()?.operator;
          return operator === undefined ? line : { ...line, operator };
        },
      },
    },
  );
}
