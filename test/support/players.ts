// Synthetic sandbox players, and the consent flow driven over plain HTTP (the browser tests
// drive the same pages in Chromium).
import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@devplat/db';
import { hashPassword } from '@devplat/passwords';

export async function createPlayer(prisma: PrismaClient, accountId: string, displayName: string | null = 'Ada') {
  const username = `player-${randomUUID().slice(0, 8)}`;
  const password = `pw-${randomUUID()}`;
  const player = await prisma.sandboxPlayer.create({
    data: { accountId, username, passwordHash: await hashPassword(password), displayName },
  });
  return { player, username, password };
}

/** `count` players of the account sharing one password, hashed once: fixtures at scale (the benchmarks). */
export async function createPlayers(prisma: PrismaClient, accountId: string, count: number, displayName = 'Ada') {
  const password = `pw-${randomUUID()}`;
  const passwordHash = await hashPassword(password);
  const usernames = Array.from({ length: count }, () => `player-${randomUUID().slice(0, 8)}`);
  await prisma.sandboxPlayer.createMany({
    data: usernames.map((username) => ({ accountId, username, passwordHash, displayName })),
  });
  return usernames.map((username) => ({ username, password }));
}

/** A cookie jar just big enough for the player client. */
export class Jar {
  private readonly cookies = new Map<string, string>();
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      this.cookies.set(name.trim(), value);
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

export interface ConsentScreen {
  /** Where the player client sent the browser without showing the screen, if it did. */
  redirected?: URL;
  /** Answers the screen; resolves with the response (a redirect, or a page). */
  answer(decision: 'allow' | 'deny'): Promise<Response>;
  /** The screen's HTML. */
  html: string;
  /** Presses "Not you? Sign out"; resolves with the raw answer. */
  notYou(): Promise<Response>;
}

/** Follows an authorization URL as a player would, signing in, up to the consent screen. */
export async function openConsentScreen(
  authorizationUrl: string,
  player: { username: string; password: string },
): Promise<ConsentScreen> {
  const jar = new Jar();
  const origin = new URL(authorizationUrl).origin;
  const get = async (url: string) => {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(response);
    return response;
  };
  const post = async (path: string, fields: Record<string, string>) => {
    const response = await fetch(`${origin}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    jar.take(response);
    return response;
  };
  let response = await get(authorizationUrl);
  if (response.status === 302 && response.headers.get('location')?.startsWith('/signin')) {
    const signIn = await (await get(`${origin}${response.headers.get('location')}`)).text();
    response = await post('/signin', {
      csrf: field(signIn, 'csrf'),
      return_to: field(signIn, 'return_to').replaceAll('&amp;', '&'),
      username: player.username,
      password: player.password,
    });
    if (response.status !== 302) throw new Error(`sign-in failed: ${response.status}`);
    response = await get(`${origin}${response.headers.get('location')}`);
  }
  if (response.status === 302) {
    return {
      redirected: new URL(response.headers.get('location') as string),
      answer: () => Promise.reject(new Error('no screen')),
      html: '',
      notYou: () => Promise.reject(new Error('no screen')),
    };
  }
  const consent = await response.text();
  if (response.status !== 200) throw new Error(`consent screen answered ${response.status}: ${consent}`);
  return {
    answer: (decision) =>
      post('/oauth/authorize', { request: field(consent, 'request'), csrf: field(consent, 'csrf'), decision }),
    html: consent,
    notYou: () =>
      post('/signout', {
        csrf: field(consent, 'csrf'),
        return_to: field(consent, 'return_to').replaceAll('&amp;', '&'),
      }),
  };
}

/** Signs in, answers the consent screen, and returns where the player client sends the browser. */
export async function consentOverHttp(
  authorizationUrl: string,
  player: { username: string; password: string },
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  const screen = await openConsentScreen(authorizationUrl, player);
  if (screen.redirected) return screen.redirected;
  const response = await screen.answer(decision);
  return new URL(response.headers.get('location') as string);
}
