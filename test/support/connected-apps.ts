// A player's connected apps driven over plain HTTP: a signed-in player with a cookie jar, apps
// with names of their own, and an app that holds tokens from a real consent.
import type { PrismaClient } from '@devplat/db';
import { createTestApp } from './apps.ts';
import { call } from './http.ts';
import { type AppClient, authorizationRequest, basicAuth, redeemCode, type UserTokens } from './oauth.ts';
import { consentOverHttp, Jar } from './players.ts';

/** The value of a hidden field of a page's form (the first one with that name). */
export const formField = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

/** A browser-like client of the player client: keeps cookies, never follows redirects. */
export class PlayerAgent {
  private readonly jar = new Jar();
  readonly origin: string;
  constructor(origin: string) {
    this.origin = origin;
  }

  async get(path: string): Promise<Response> {
    const response = await fetch(`${this.origin}${path}`, {
      redirect: 'manual',
      headers: { cookie: this.jar.header() },
    });
    this.jar.take(response);
    return response;
  }

  async post(path: string, fields: Record<string, string>): Promise<Response> {
    const response = await fetch(`${this.origin}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    this.jar.take(response);
    return response;
  }

  /** Signs in from /signin with no return_to; resolves with where sign-in sent the browser. */
  async signIn(player: { username: string; password: string }): Promise<string> {
    const signInPage = await (await this.get('/signin')).text();
    const response = await this.post('/signin', {
      csrf: formField(signInPage, 'csrf'),
      return_to: formField(signInPage, 'return_to'),
      username: player.username,
      password: player.password,
    });
    if (response.status !== 302) throw new Error(`sign-in failed: ${response.status}`);
    return response.headers.get('location') as string;
  }

  /** The connected-apps page as the player reads it (status and HTML). */
  async connectedApps(): Promise<{ status: number; html: string; csrf: string }> {
    const response = await this.get('/account/connected-apps');
    const html = await response.text();
    return { status: response.status, html, csrf: formField(html, 'csrf') };
  }

  /** Presses Remove access with these form fields; resolves with the raw answer. */
  remove(fields: Record<string, string>): Promise<Response> {
    return this.post('/account/connected-apps/remove', fields);
  }
}

/** A sandbox app with its own name (createTestApp names every app "Test App"). */
export async function createNamedApp(
  prisma: PrismaClient,
  name: string,
  options: { scopes?: string[]; redirectUris?: string[] } = {},
) {
  const created = await createTestApp(prisma, {
    scopes: options.scopes ?? ['city.public.read', 'profile.basic.read'],
    redirectUris: options.redirectUris ?? ['http://127.0.0.1:9/callback'],
  });
  // Before anything has looked the app up, so no cache holds the old name.
  const app = await prisma.app.update({ where: { id: created.app.id }, data: { name } });
  return { ...created, app };
}

/** The player allows the app over HTTP (a session of its own) and the app redeems the code. */
export async function allowOverHttp(
  base: string,
  app: AppClient & { app: { redirectUris: string[] } },
  player: { username: string; password: string },
  scope = 'city.public.read profile.basic.read',
): Promise<UserTokens> {
  const redirectUri = app.app.redirectUris[0] as string;
  const { url, state, verifier } = await authorizationRequest(base, app.clientId, redirectUri, scope);
  const back = await consentOverHttp(url, player);
  return redeemCode(base, app, back, redirectUri, state, verifier);
}

/** POST {base}/oauth/token grant_type=refresh_token, checked against the contract. */
export function refresh(base: string, app: AppClient, refreshToken: string) {
  return call(base, '/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
  });
}
