// The admin API's own key in Koa's ctx.state (the common ones: @devplat/http state.ts): the
// operator whose token the request carried, set by the guard (authenticate.ts).
import type { OperatorToken } from '@devplat/keys';

declare module 'koa' {
  interface DefaultState {
    operator?: Pick<OperatorToken, 'name' | 'role'>;
  }
}
