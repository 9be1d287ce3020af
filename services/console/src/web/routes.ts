// The console's web UI on {console_url}: the same domain operations as the JSON API, behind a
// cookie session. Every form carries a CSRF token (the session's, or before sign-in a
// double-submit cookie), pages forbid framing, and the cookie is HttpOnly, SameSite=Strict and
// Secure (__Host-) when the console is served over https.

import type { DeliveryView } from '@devplat/contract';
import { ProblemError, randomToken, readFormWithLists, sameToken } from '@devplat/http';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { authenticate, registerAccount, usable } from '../domain/accounts.ts';
import { appView } from '../domain/apps.ts';
import type { Actor } from '../domain/audit.ts';
import type { ConsoleDomain } from '../domain/index.ts';
import { playerView } from '../domain/players.ts';
import { type ConsoleSession, sessionSeconds } from '../domain/sessions.ts';
import { appPage, appsPage, type Frame, newAppPage, playersPage, registerPage, signInPage } from './pages.ts';

interface SignedIn {
  token: string;
  session: ConsoleSession;
  account: { id: string; displayName: string };
}

export function consoleWebRouter(domain: ConsoleDomain, secure: boolean): Router {
  const { prisma, sessions, apps, players } = domain;
  const sessionCookie = secure ? '__Host-console_session' : 'console_session';
  const csrfCookie = secure ? '__Host-console_csrf' : 'console_csrf';
  const cookie = { httpOnly: true, sameSite: 'strict' as const, secure, path: '/', signed: false, overwrite: true };
  const router = new Router({ strict: true, sensitive: true });

  const page = (ctx: Context, status: number, body: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = body;
  };
  /** Before sign-in: a double-submit token in a cookie and in the form. */
  const anonymousCsrf = (ctx: Context) => {
    const token = randomToken();
    ctx.cookies.set(csrfCookie, token, cookie);
    return token;
  };
  const checkAnonymousCsrf = (ctx: Context, presented: string | undefined) => {
    if (!sameToken(presented, ctx.cookies.get(csrfCookie))) {
      throw new ProblemError('CSRF_FAILED', 'This form has expired. Load the page again and resubmit.');
    }
  };
  const frame = (signedIn: SignedIn | null, title: string, extra: Partial<Frame> = {}): Frame => ({
    title,
    ...(signedIn ? { signedIn: { displayName: signedIn.account.displayName, csrf: signedIn.session.csrf } } : {}),
    ...extra,
  });
  const startSession = async (ctx: Context, accountId: string) => {
    const { token } = await sessions.start(accountId);
    ctx.cookies.set(sessionCookie, token, { ...cookie, maxAge: sessionSeconds * 1000 });
    ctx.cookies.set(csrfCookie, '', { ...cookie, maxAge: 0 });
    ctx.redirect('/apps');
    ctx.status = 303;
  };

  const current = async (ctx: Context): Promise<SignedIn | null> => {
    const token = ctx.cookies.get(sessionCookie);
    const session = await sessions.find(token);
    if (!token || !session) return null;
    const account = await prisma.account.findUnique({ where: { id: session.accountId } });
    if (!account) return null;
    usable(account);
    return { token, session, account };
  };
  /** Pages behind sign-in; a POST must carry the session's CSRF token. */
  const signedIn: Middleware = async (ctx, next) => {
    const who = await current(ctx);
    if (!who) {
      if (ctx.method === 'GET') return ctx.redirect('/signin');
      throw new ProblemError('NOT_SIGNED_IN', 'Your session has ended. Sign in again.');
    }
    ctx.state.who = who;
    if (ctx.method === 'POST') {
      const form = await readFormWithLists(ctx, ['scopes']);
      if (!sameToken(form.fields.csrf, who.session.csrf)) {
        throw new ProblemError('CSRF_FAILED', 'This form has expired. Load the page again and resubmit.');
      }
      ctx.state.form = form;
    }
    await next();
  };
  const who = (ctx: Context) => ctx.state.who as SignedIn;
  const actor = (ctx: Context): Actor => ({ accountId: who(ctx).account.id, requestId: ctx.state.requestId });
  /** Redirects after a change, with a notice shown once on the next page. */
  const done = async (ctx: Context, location: string, notice: string) => {
    await sessions.notify(who(ctx).token, notice);
    ctx.redirect(location);
    ctx.status = 303;
  };
  const takeNotice = (ctx: Context) => sessions.takeNotice(who(ctx).token);
  /** A refusal of the developer's input shows the form again with the reason. */
  const refusedInput = (error: unknown) => error instanceof ProblemError && error.status < 500;

  router.get('/', async (ctx) => ctx.redirect((await current(ctx)) ? '/apps' : '/signin'));

  router.get('/signin', (ctx) => page(ctx, 200, signInPage(frame(null, 'Sign in'), anonymousCsrf(ctx))));
  router.post('/signin', async (ctx) => {
    const { fields } = await readFormWithLists(ctx, []);
    checkAnonymousCsrf(ctx, fields.csrf);
    try {
      const account = await authenticate(prisma, { email: fields.email, password: fields.password });
      await startSession(ctx, account.id);
    } catch (error) {
      if (!refusedInput(error)) throw error;
      const status = (error as ProblemError).status;
      const view = frame(null, 'Sign in', { error: (error as ProblemError).detail });
      page(ctx, status, signInPage(view, anonymousCsrf(ctx), fields.email));
    }
  });

  router.get('/register', (ctx) => page(ctx, 200, registerPage(frame(null, 'Register'), anonymousCsrf(ctx))));
  router.post('/register', async (ctx) => {
    const { fields } = await readFormWithLists(ctx, []);
    checkAnonymousCsrf(ctx, fields.csrf);
    const input = { email: fields.email, password: fields.password, display_name: fields.display_name };
    try {
      const account = await registerAccount(prisma, input, ctx.state.requestId);
      await startSession(ctx, account.id);
    } catch (error) {
      if (!refusedInput(error)) throw error;
      const view = frame(null, 'Register', { error: (error as ProblemError).detail });
      page(ctx, (error as ProblemError).status, registerPage(view, anonymousCsrf(ctx), input));
    }
  });

  router.post('/signout', signedIn, async (ctx) => {
    await sessions.end(who(ctx).token);
    ctx.cookies.set(sessionCookie, '', { ...cookie, maxAge: 0 });
    ctx.redirect('/signin');
    ctx.status = 303;
  });

  router.get('/apps', signedIn, async (ctx) => {
    const notice = await takeNotice(ctx);
    const list = (await apps.list(who(ctx).account.id)).map(appView);
    page(ctx, 200, appsPage(frame(who(ctx), 'Apps', { notice }), list));
  });
  router.get('/apps/new', signedIn, (ctx) =>
    page(ctx, 200, newAppPage(frame(who(ctx), 'Create app'), who(ctx).session.csrf)),
  );
  router.post('/apps', signedIn, async (ctx) => {
    const { fields, lists } = ctx.state.form as Awaited<ReturnType<typeof readFormWithLists>>;
    const values = {
      name: fields.name,
      redirect_uris: fields.redirect_uris ?? '',
      scopes: lists.scopes ?? [],
      webhook_url: fields.webhook_url ?? '',
    };
    try {
      const { app, clientSecret } = await apps.create(actor(ctx), {
        name: values.name,
        redirect_uris: values.redirect_uris.split(/\s+/).filter(Boolean),
        scopes: values.scopes,
        webhook_url: values.webhook_url || null,
      });
      // A new app has delivered nothing yet.
      const deliveries: DeliveryView[] = [];
      const view = frame(who(ctx), app.name, { notice: `Created ${app.name}.` });
      page(ctx, 201, appPage(view, who(ctx).session.csrf, appView(app), { newSecret: clientSecret, deliveries }));
    } catch (error) {
      if (!refusedInput(error)) throw error;
      const view = frame(who(ctx), 'Create app', { error: (error as ProblemError).detail });
      page(ctx, (error as ProblemError).status, newAppPage(view, who(ctx).session.csrf, values));
    }
  });

  const showApp = async (ctx: Context, clientId: string, extra: { notice?: string; newSecret?: string } = {}) => {
    const app = await apps.find(who(ctx).account.id, clientId);
    const deliveries = await apps.failedDeliveries(app);
    const view = frame(who(ctx), app.name, { notice: extra.notice ?? (await takeNotice(ctx)) });
    page(ctx, 200, appPage(view, who(ctx).session.csrf, appView(app), { deliveries, newSecret: extra.newSecret }));
  };
  router.get('/apps/:clientId', signedIn, (ctx) => showApp(ctx, ctx.params.clientId as string));
  router.post('/apps/:clientId/secrets', signedIn, async (ctx) => {
    const { clientSecret } = await apps.rotateSecret(actor(ctx), ctx.params.clientId as string);
    await showApp(ctx, ctx.params.clientId as string, {
      notice: 'Added a new client secret.',
      newSecret: clientSecret,
    });
  });
  router.post('/apps/:clientId/secrets/:secretId/revoke', signedIn, async (ctx) => {
    await apps.revokeSecret(actor(ctx), ctx.params.clientId as string, ctx.params.secretId as string);
    await done(
      ctx,
      `/apps/${ctx.params.clientId}`,
      'Revoked the secret. Tokens obtained with it stop on their next use.',
    );
  });
  router.post('/apps/:clientId/webhook', signedIn, async (ctx) => {
    const { fields } = ctx.state.form as Awaited<ReturnType<typeof readFormWithLists>>;
    await apps.setWebhookUrl(actor(ctx), ctx.params.clientId as string, { webhook_url: fields.webhook_url || null });
    await done(
      ctx,
      `/apps/${ctx.params.clientId}`,
      fields.webhook_url ? 'Saved the webhook URL.' : 'Removed the webhook URL.',
    );
  });
  router.post('/apps/:clientId/disable', signedIn, async (ctx) => {
    await apps.disable(actor(ctx), ctx.params.clientId as string);
    await done(ctx, `/apps/${ctx.params.clientId}`, 'Disabled the app. Its tokens stop on their next use.');
  });
  router.post('/apps/:clientId/webhooks/test', signedIn, async (ctx) => {
    const { deliveryId } = await apps.sendTestWebhook(actor(ctx), ctx.params.clientId as string);
    await done(ctx, `/apps/${ctx.params.clientId}`, `Queued a signed test webhook (delivery ${deliveryId}).`);
  });
  router.post('/apps/:clientId/deliveries/:deliveryId/replay', signedIn, async (ctx) => {
    const { deliveryId } = await apps.replay(actor(ctx), ctx.params.deliveryId as string);
    await done(ctx, `/apps/${ctx.params.clientId}`, `Queued the event again (delivery ${deliveryId}).`);
  });

  router.get('/players', signedIn, async (ctx) => {
    const notice = await takeNotice(ctx);
    const list = (await players.list(who(ctx).account.id)).map(playerView);
    page(ctx, 200, playersPage(frame(who(ctx), 'Sandbox players', { notice }), who(ctx).session.csrf, list));
  });
  router.post('/players', signedIn, async (ctx) => {
    const { fields } = ctx.state.form as Awaited<ReturnType<typeof readFormWithLists>>;
    const input = { username: fields.username, password: fields.password, display_name: fields.display_name };
    try {
      const player = await players.create(actor(ctx), input);
      await done(ctx, '/players', `Created the sandbox player ${player.username}.`);
    } catch (error) {
      if (!refusedInput(error)) throw error;
      const list = (await players.list(who(ctx).account.id)).map(playerView);
      const view = frame(who(ctx), 'Sandbox players', { error: (error as ProblemError).detail });
      page(ctx, (error as ProblemError).status, playersPage(view, who(ctx).session.csrf, list, input));
    }
  });
  return router;
}
