// The sample app: a small web app that signs a player in through the Developer Platform (the
// authorization code flow with PKCE, by openid-client), shows the player's /me profile and the city
// list, refreshes and revokes its tokens, and receives consent webhooks, verifying each with
// standardwebhooks. Read it top to bottom: it is what your own app does.
import { randomBytes } from 'node:crypto';
import Koa from 'koa';
import * as client from 'openid-client';
import { Webhook } from 'standardwebhooks';

export interface SampleSettings {
  /** The platform's base address (the issuer), e.g. http://127.0.0.1:8080/developer/v1 */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** This app's callback, registered with the app: http://127.0.0.1:3000/callback */
  redirectUri: string;
  /** The app's webhook signing secret (whsec_…). */
  webhookSecret: string;
}

interface Session {
  csrf: string;
  /** While the browser is at the consent screen. */
  pending?: { state: string; verifier: string };
  tokens?: client.TokenEndpointResponse;
  notice?: string;
}

interface ReceivedEvent {
  id: string;
  type: string;
  sub: string;
  reason?: string;
  test: boolean;
  at: string;
}

const escapeHtml = (text: unknown) =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
code{font-size:.9em}table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.2rem .6rem;text-align:left}
form{display:inline}.notice{background:#eef7ee;padding:.5rem}</style></head><body>${body}</body></html>`;
}

export async function buildSampleApp(settings: SampleSettings): Promise<Koa> {
  const issuer = new URL(settings.baseUrl);
  const config = await client.discovery(issuer, settings.clientId, settings.clientSecret, undefined, {
    algorithm: 'oauth2', // RFC 8414 metadata: an OAuth 2.0 server, not OpenID Connect
    // The local platform speaks plain http; never do this against an https platform.
    ...(issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
  });
  const webhook = new Webhook(settings.webhookSecret);
  const sessions = new Map<string, Session>();
  const events: ReceivedEvent[] = [];

  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  });

  /** This browser's session (a random id in an HttpOnly cookie; kept in memory: a sample). */
  const sessionOf = (ctx: Koa.Context): Session => {
    let id = ctx.cookies.get('sample_session');
    let session = id ? sessions.get(id) : undefined;
    if (!id || !session) {
      id = randomBytes(24).toString('base64url');
      session = { csrf: randomBytes(24).toString('base64url') };
      sessions.set(id, session);
      // SameSite=Lax: the cookie comes back with the consent screen's redirect (a top-level GET).
      ctx.cookies.set('sample_session', id, { httpOnly: true, sameSite: 'lax', overwrite: true });
    }
    return session;
  };
  const readBody = async (ctx: Koa.Context) => {
    let body = '';
    for await (const chunk of ctx.req) body += chunk;
    return body;
  };
  /** A POST form must carry the session's CSRF token. */
  const checkedForm = async (ctx: Koa.Context, session: Session) => {
    const form = new URLSearchParams(await readBody(ctx));
    if (form.get('csrf') !== session.csrf) ctx.throw(403, 'The form expired: go back and try again.');
  };
  const api = (session: Session, path: string) =>
    client.fetchProtectedResource(
      config,
      session.tokens?.access_token as string,
      new URL(`${settings.baseUrl}${path}`),
      'GET',
    );

  app.use(async (ctx) => {
    const session = sessionOf(ctx);
    const route = `${ctx.method} ${ctx.path}`;
    switch (route) {
      case 'GET /': {
        const notice = session.notice ? `<p class="notice">${escapeHtml(session.notice)}</p>` : '';
        session.notice = undefined;
        const eventRows = events
          .map(
            (e) =>
              `<tr><td>${escapeHtml(e.at)}</td><td>${escapeHtml(e.type)}${e.test ? ' (test)' : ''}</td><td><code>${escapeHtml(e.sub)}</code></td><td>${escapeHtml(e.reason ?? '')}</td></tr>`,
          )
          .join('');
        const webhooks = `<h2>Consent webhooks received</h2>${
          events.length
            ? `<table aria-label="Webhooks"><tr><th>When</th><th>Event</th><th>sub</th><th>Reason</th></tr>${eventRows}</table>`
            : "<p>None yet. Each is verified with the app's signing secret before it is shown.</p>"
        }`;
        if (!session.tokens) {
          ctx.body = page(
            'Sample app',
            `<h1>Sample app</h1>${notice}<p><a href="/login">Sign in with the Developer Platform</a></p>${webhooks}`,
          );
          return;
        }
        const me = await api(session, '/me');
        if (me.status !== 200) {
          // The consent ended, the token was revoked, the player was disabled: sign in again.
          const problem = (await me.json()) as { code?: string; detail?: string };
          session.tokens = undefined;
          ctx.body = page(
            'Sample app',
            `<h1>Sample app</h1><p>The platform refused: ${escapeHtml(problem.code)} (${escapeHtml(problem.detail)}). <a href="/login">Sign in again</a></p>${webhooks}`,
          );
          return;
        }
        const profile = (await me.json()) as { sub: string; display_name: string | null };
        const cities = (await (await api(session, '/cities?limit=100')).json()) as { data?: { name: string }[] };
        const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}">`;
        ctx.body = page(
          'Sample app',
          `<h1>Hello, <span data-testid="display-name">${escapeHtml(profile.display_name ?? 'player')}</span></h1>${notice}
<p>Your <code>sub</code> for this app: <code data-testid="sub">${escapeHtml(profile.sub)}</code></p>
<p>Granted: <code>${escapeHtml(session.tokens.scope)}</code>; the access token expires in ${escapeHtml(session.tokens.expires_in)} s.</p>
<form method="post" action="/refresh">${csrf}<button>Refresh tokens</button></form>
<form method="post" action="/logout">${csrf}<button>Sign out (revoke)</button></form>
<h2>Cities</h2>${cities.data ? `<ul aria-label="Cities">${cities.data.map((city) => `<li>${escapeHtml(city.name)}</li>`).join('')}</ul>` : '<p>Not granted.</p>'}
${webhooks}`,
        );
        return;
      }
      case 'GET /login': {
        const verifier = client.randomPKCECodeVerifier();
        const state = client.randomState();
        session.pending = { state, verifier };
        ctx.redirect(
          client.buildAuthorizationUrl(config, {
            redirect_uri: settings.redirectUri,
            scope: 'profile.basic.read city.public.read',
            state,
            code_challenge: await client.calculatePKCECodeChallenge(verifier),
            code_challenge_method: 'S256',
          }).href,
        );
        return;
      }
      case 'GET /callback': {
        const pending = session.pending;
        session.pending = undefined;
        if (!pending) {
          ctx.status = 400;
          ctx.body = 'No sign-in is under way here: start again from the home page.';
          return;
        }
        try {
          session.tokens = await client.authorizationCodeGrant(config, new URL(ctx.href), {
            pkceCodeVerifier: pending.verifier,
            expectedState: pending.state,
          });
          session.notice = 'Signed in.';
        } catch (error) {
          // access_denied when the player declines, invalid_grant for a used or expired code, …
          session.notice = `Not signed in: ${(error as { error?: string }).error ?? (error as Error).message}.`;
        }
        ctx.redirect('/');
        return;
      }
      case 'POST /refresh': {
        await checkedForm(ctx, session);
        const refreshToken = session.tokens?.refresh_token;
        if (!refreshToken) {
          ctx.redirect('/');
          return;
        }
        // Rotation: the old refresh token stops working; keep the new one.
        session.tokens = await client.refreshTokenGrant(config, refreshToken);
        session.notice = 'Refreshed: a new access token and a new refresh token.';
        ctx.redirect('/');
        return;
      }
      case 'POST /logout': {
        await checkedForm(ctx, session);
        const refreshToken = session.tokens?.refresh_token;
        session.tokens = undefined;
        // Revoking the refresh token ends the consent: every token under it stops.
        if (refreshToken) await client.tokenRevocation(config, refreshToken);
        session.notice = 'Signed out: the tokens are revoked.';
        ctx.redirect('/');
        return;
      }
      case 'POST /webhooks': {
        const body = await readBody(ctx);
        const headers = Object.fromEntries(Object.entries(ctx.headers).map(([name, value]) => [name, String(value)]));
        let event: { type: string; data: { sub: string; reason?: string; test?: boolean } };
        try {
          event = webhook.verify(body, headers) as typeof event;
        } catch {
          ctx.status = 400; // a bad signature or an old timestamp: not from the platform
          return;
        }
        const id = headers['webhook-id'] as string;
        if (!events.some((each) => each.id === id)) {
          events.push({
            id,
            type: event.type,
            sub: event.data.sub,
            reason: event.data.reason,
            test: event.data.test === true,
            at: new Date().toISOString(),
          });
        }
        ctx.status = 204;
        return;
      }
      default:
        ctx.status = 404;
        ctx.body = 'Not found.';
    }
  });
  return app;
}
