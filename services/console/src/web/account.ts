// The console web UI's account pages: sign in, register, sign out.
import { readFormWithLists, sendPage } from '@devplat/http';
import type { Context } from 'koa';
import { formExpired, frame, refused, requester, type WebRoutes } from './context.ts';
import { registerPage, signInPage } from './pages.ts';

export function accountPages({ route, signedInRoute, domain: { accounts }, sessions, csrf, current }: WebRoutes): void {
  const startSession = async (ctx: Context, accountId: string) => {
    await sessions.start(ctx, { accountId });
    csrf.clear(ctx);
    ctx.redirect('/apps');
    ctx.status = 303;
  };
  /** The anonymous form's fields, once its double-submit CSRF token checks out. */
  const anonymousForm = async (ctx: Context) => {
    const { fields } = await readFormWithLists(ctx, []);
    if (!csrf.valid(ctx, fields.csrf)) throw formExpired();
    return fields;
  };

  route('/', { GET: async (ctx) => ctx.redirect((await current(ctx)) ? '/apps' : '/signin') });
  route('/signin', {
    GET: (ctx) => sendPage(ctx, 200, signInPage(frame(null, 'Sign in'), csrf.issue(ctx))),
    POST: async (ctx) => {
      const fields = await anonymousForm(ctx);
      try {
        const account = await accounts.authenticate({ email: fields.email, password: fields.password }, requester(ctx));
        await startSession(ctx, account.id);
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        sendPage(ctx, status, signInPage(frame(null, 'Sign in', { error: reason }), csrf.issue(ctx), fields.email));
      }
    },
  });
  route('/register', {
    GET: (ctx) => sendPage(ctx, 200, registerPage(frame(null, 'Register'), csrf.issue(ctx))),
    POST: async (ctx) => {
      const fields = await anonymousForm(ctx);
      const input = { email: fields.email, password: fields.password, display_name: fields.display_name };
      try {
        const account = await accounts.register(input, requester(ctx));
        await startSession(ctx, account.id);
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        sendPage(ctx, status, registerPage(frame(null, 'Register', { error: reason }), csrf.issue(ctx), input));
      }
    },
  });
  signedInRoute('/signout', {
    POST: async (ctx) => {
      await sessions.end(ctx);
      ctx.redirect('/signin');
      ctx.status = 303;
    },
  });
}
