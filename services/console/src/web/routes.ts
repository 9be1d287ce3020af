// The console's web UI on {console_url}: the same domain operations as the JSON API, behind a
// cookie session. Every form carries a CSRF token (the session's, or before sign-in a
// double-submit cookie), pages forbid framing, and the cookie is HttpOnly, SameSite=Strict and
// Secure (__Host-) when the console is served over https.

import type { DeliveryView } from '@devplat/contract';
import type { Actor } from '@devplat/db';
import { Refusal } from '@devplat/domain/refusal';
import {
  cookie,
  cookieSessions,
  doubleSubmitCsrf,
  type OperationHandlers,
  type PageApp,
  ProblemError,
  readFormWithLists,
  sendPage,
  sessionFormValid,
} from '@devplat/http';
import type { Context, Middleware } from 'koa';
import type { Requester, SignedIn } from '../domain/accounts.ts';
import type { AppView } from '../domain/apps.ts';
import { appView } from '../domain/apps.ts';
import type { ConsoleDomain } from '../domain/index.ts';
import { playerView } from '../domain/players.ts';
import { refusalProblem } from '../doors.ts';
import { lastDays } from './chart.ts';
import {
  type AppFormValues,
  appPage,
  appsPage,
  deleteAppPage,
  editAppPage,
  type Frame,
  newAppPage,
  playersPage,
  registerPage,
  signInPage,
} from './pages.ts';

type Form = Awaited<ReturnType<typeof readFormWithLists>>;

const formExpired = () => new ProblemError('CSRF_FAILED', 'This form has expired. Load the page again and resubmit.');

export function consoleWebPages(route: PageApp['route'], domain: ConsoleDomain, secure: boolean): void {
  const { accounts, apps, players } = domain;
  // The web UI's own sessions: never accepted as an API bearer token (domain/sessions.ts).
  const sessionCookie = cookie({ name: 'console_session', sameSite: 'strict', secure });
  const sessions = cookieSessions(domain.sessions.web, sessionCookie);
  const csrf = doubleSubmitCsrf(cookie({ name: 'console_csrf', sameSite: 'strict', secure }));

  const frame = (signedIn: SignedIn | null, title: string, extra: Partial<Frame> = {}): Frame => ({
    title,
    ...(signedIn ? { signedIn: { displayName: signedIn.account.displayName, csrf: signedIn.session.csrf } } : {}),
    ...extra,
  });
  const startSession = async (ctx: Context, accountId: string) => {
    await sessions.start(ctx, { accountId });
    csrf.clear(ctx);
    ctx.redirect('/apps');
    ctx.status = 303;
  };
  const checkAnonymousCsrf = (ctx: Context, presented: string | undefined) => {
    if (!csrf.valid(ctx, presented)) throw formExpired();
  };

  const current = (ctx: Context): Promise<SignedIn | null> => accounts.signedIn(sessions.store, sessionCookie.get(ctx));
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
      if (!sessionFormValid(who.session, form.fields.csrf)) throw formExpired();
      ctx.state.form = form;
    }
    await next();
  };
  const who = (ctx: Context) => ctx.state.who as SignedIn;
  const form = (ctx: Context) => ctx.state.form as Form;
  const actor = (ctx: Context): Actor => ({ accountId: who(ctx).account.id, requestId: ctx.state.requestId });
  /** Redirects after a change, with a notice shown once on the next page. */
  const done = async (ctx: Context, location: string, notice: string) => {
    await sessions.store.notify(who(ctx).token, notice);
    ctx.redirect(location);
    ctx.status = 303;
  };
  const takeNotice = (ctx: Context) => sessions.store.takeNotice(who(ctx).token);
  /** A refusal shows the form again with its Problem's detail, at its Problem's status. */
  const refused = (ctx: Context, error: unknown) => {
    if (!(error instanceof Refusal)) throw error;
    const problem = refusalProblem(error);
    ctx.set(problem.headers);
    return { status: problem.status, reason: problem.detail };
  };
  const requester = (ctx: Context): Requester => ({ requestId: ctx.state.requestId, address: ctx.ip });

  route('/', { GET: async (ctx) => ctx.redirect((await current(ctx)) ? '/apps' : '/signin') });

  route('/signin', {
    GET: (ctx) => sendPage(ctx, 200, signInPage(frame(null, 'Sign in'), csrf.issue(ctx))),
    POST: async (ctx) => {
      const { fields } = await readFormWithLists(ctx, []);
      checkAnonymousCsrf(ctx, fields.csrf);
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
      const { fields } = await readFormWithLists(ctx, []);
      checkAnonymousCsrf(ctx, fields.csrf);
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

  /** Pages behind sign-in. */
  const signedInRoute = (path: string, handlers: OperationHandlers) => route(path, handlers, { guard: signedIn });

  signedInRoute('/signout', {
    POST: async (ctx) => {
      await sessions.end(ctx);
      ctx.redirect('/signin');
      ctx.status = 303;
    },
  });

  signedInRoute('/apps', {
    GET: async (ctx) => {
      const notice = await takeNotice(ctx);
      const list = (await apps.list(who(ctx).account.id)).map(appView);
      sendPage(ctx, 200, appsPage(frame(who(ctx), 'Apps', { notice }), list));
    },
    POST: async (ctx) => {
      const values = { ...appFormValues(ctx), webhook_url: form(ctx).fields.webhook_url ?? '' };
      try {
        const { app, clientSecret } = await apps.create(actor(ctx), {
          name: values.name,
          redirect_uris: uriLines(values),
          scopes: values.scopes,
          webhook_url: values.webhook_url || null,
        });
        // A new app has delivered nothing yet.
        const deliveries: DeliveryView[] = [];
        const view = frame(who(ctx), app.name, { notice: `Created ${app.name}.` });
        sendPage(ctx, 201, appPage(view, who(ctx).session.csrf, appView(app), { newSecret: clientSecret, deliveries }));
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        const view = frame(who(ctx), 'Create app', { error: reason });
        sendPage(ctx, status, newAppPage(view, who(ctx).session.csrf, values));
      }
    },
  });
  signedInRoute('/apps/new', {
    GET: (ctx) => sendPage(ctx, 200, newAppPage(frame(who(ctx), 'Create app'), who(ctx).session.csrf)),
  });

  /** The fields of the create and edit forms, as typed. */
  const appFormValues = (ctx: Context) => {
    const { fields, lists } = form(ctx);
    return { name: fields.name, redirect_uris: fields.redirect_uris ?? '', scopes: lists.scopes ?? [] };
  };
  const uriLines = (values: AppFormValues) => (values.redirect_uris ?? '').split(/\s+/).filter(Boolean);

  const showApp = async (ctx: Context, extra: { notice?: string; newSecret?: string } = {}) => {
    const app = await apps.find(who(ctx).account.id, ctx.params.clientId as string);
    const days = lastDays(new Date());
    const [deliveries, activity] = await Promise.all([
      apps.failedDeliveries(app),
      apps.activity(app, new Date(`${days[0]}T00:00:00Z`)),
    ]);
    const view = frame(who(ctx), app.name, { notice: extra.notice ?? (await takeNotice(ctx)) });
    const extras = { deliveries, newSecret: extra.newSecret, activity: { days, ...activity } };
    sendPage(ctx, 200, appPage(view, who(ctx).session.csrf, appView(app), extras));
  };
  /** A button on an app's page: the change, then back to the page with what it did. */
  const appAction = (path: string, change: (ctx: Context, clientId: string) => Promise<string>) =>
    signedInRoute(`/apps/:clientId${path}`, {
      POST: async (ctx) => {
        const clientId = ctx.params.clientId as string;
        await done(ctx, `/apps/${clientId}`, await change(ctx, clientId));
      },
    });

  signedInRoute('/apps/:clientId', { GET: (ctx) => showApp(ctx) });
  signedInRoute('/apps/:clientId/secrets', {
    POST: async (ctx) => {
      const { clientSecret } = await apps.rotateSecret(actor(ctx), ctx.params.clientId as string);
      await showApp(ctx, { notice: 'Added a new client secret.', newSecret: clientSecret });
    },
  });
  appAction('/secrets/:secretId/revoke', async (ctx, clientId) => {
    await apps.revokeSecret(actor(ctx), clientId, ctx.params.secretId as string);
    return 'Revoked the secret. Tokens obtained with it stop on their next use.';
  });
  appAction('/webhook', async (ctx, clientId) => {
    const { webhook_url } = form(ctx).fields;
    await apps.edit(actor(ctx), clientId, { webhook_url: webhook_url || null });
    return webhook_url ? 'Saved the webhook URL.' : 'Removed the webhook URL.';
  });
  appAction('/disable', async (ctx, clientId) => {
    await apps.disable(actor(ctx), clientId);
    return 'Disabled the app. Its tokens stop on their next use.';
  });
  appAction('/enable', async (ctx, clientId) => {
    await apps.enable(actor(ctx), clientId);
    return 'Enabled the app. Its tokens work again, and it can get new ones.';
  });
  const editValues = (app: AppView): AppFormValues => ({
    name: app.name,
    redirect_uris: app.redirect_uris.join('\n'),
    scopes: app.scopes,
  });
  signedInRoute('/apps/:clientId/edit', {
    GET: async (ctx) => {
      const app = appView(await apps.find(who(ctx).account.id, ctx.params.clientId as string));
      sendPage(ctx, 200, editAppPage(frame(who(ctx), `Edit ${app.name}`), who(ctx).session.csrf, app, editValues(app)));
    },
    POST: async (ctx) => {
      const clientId = ctx.params.clientId as string;
      const values = appFormValues(ctx);
      try {
        const { app, removedScopes } = await apps.edit(actor(ctx), clientId, {
          name: values.name,
          redirect_uris: uriLines(values),
          scopes: values.scopes,
        });
        const notice = removedScopes.length
          ? `Saved ${app.name}. Removed ${removedScopes.join(', ')}: consents that held a removed user scope have ended.`
          : `Saved ${app.name}.`;
        await done(ctx, `/apps/${clientId}`, notice);
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        const app = appView(await apps.find(who(ctx).account.id, clientId));
        sendPage(
          ctx,
          status,
          editAppPage(frame(who(ctx), `Edit ${app.name}`, { error: reason }), who(ctx).session.csrf, app, values),
        );
      }
    },
  });
  signedInRoute('/apps/:clientId/delete', {
    GET: async (ctx) => {
      const found = await apps.find(who(ctx).account.id, ctx.params.clientId as string);
      const consents = await apps.activeConsentCount(found);
      const page = deleteAppPage(
        frame(who(ctx), `Delete ${found.name}`),
        who(ctx).session.csrf,
        appView(found),
        consents,
      );
      sendPage(ctx, 200, page);
    },
    POST: async (ctx) => {
      const app = await apps.delete(actor(ctx), ctx.params.clientId as string);
      await done(ctx, '/apps', `Deleted ${app.name} (${app.clientId}). Its tokens stop on their next use.`);
    },
  });
  appAction('/webhooks/test', async (ctx, clientId) => {
    const { deliveryId, eventId } = await apps.sendTestWebhook(actor(ctx), clientId);
    return deliveryId
      ? `Queued a signed test webhook (delivery ${deliveryId}).`
      : `Sent a signed test event (${eventId}) to devplat listen: the app has no webhook URL.`;
  });
  appAction('/deliveries/:deliveryId/replay', async (ctx) => {
    const { deliveryId } = await apps.replay(actor(ctx), ctx.params.deliveryId as string);
    return `Queued the event again (delivery ${deliveryId}).`;
  });

  const playerList = async (ctx: Context) => (await players.list(who(ctx).account.id)).map(playerView);
  for (const [verb, status] of [
    ['disable', 'disabled'],
    ['enable', 'active'],
  ] as const) {
    signedInRoute(`/players/:playerId/${verb}`, {
      POST: async (ctx) => {
        const player = await players.setStatus(actor(ctx), ctx.params.playerId as string, status);
        const notice =
          status === 'disabled'
            ? `Disabled ${player.username}: their tokens answer 403 ACCESS_DENIED from the next call, and they cannot sign in.`
            : `Enabled ${player.username} again.`;
        await done(ctx, '/players', notice);
      },
    });
  }
  signedInRoute('/players', {
    GET: async (ctx) => {
      const view = frame(who(ctx), 'Sandbox players', { notice: await takeNotice(ctx) });
      sendPage(ctx, 200, playersPage(view, who(ctx).session.csrf, await playerList(ctx)));
    },
    POST: async (ctx) => {
      const { fields } = form(ctx);
      const input = { username: fields.username, password: fields.password, display_name: fields.display_name };
      try {
        const player = await players.create(actor(ctx), input, ctx.ip);
        await done(ctx, '/players', `Created the sandbox player ${player.username}.`);
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        const view = frame(who(ctx), 'Sandbox players', { error: reason });
        sendPage(ctx, status, playersPage(view, who(ctx).session.csrf, await playerList(ctx), input));
      }
    },
  });
}
