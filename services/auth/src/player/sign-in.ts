// Sandbox-player sign-in at /signin: the form with its double-submit CSRF token, and the attempt,
// throttled per username and per address.
import type { PrismaClient, SandboxPlayer } from '@devplat/db';
import { findPlayerByUsername } from '@devplat/domain/players';
import { type PageApp, ProblemError, readForm, sendPage } from '@devplat/http';
import { decoyHash, verifyPassword } from '@devplat/passwords';
import { type SignInThrottle, signInThrottle, waitInWords } from '@devplat/throttle';
import { type PlayerClient, safeReturnTo } from './client.ts';
import { signInPage } from './pages.ts';
import { signInCsrf } from './session.ts';

export interface SignInAttempt {
  username: string;
  password: string;
  /** The client's IP address. */
  address: string;
}

export type SignInOutcome =
  | { outcome: 'locked'; retryAfterSeconds: number }
  | { outcome: 'wrong' }
  | { outcome: 'signedIn'; player: SandboxPlayer };

export function signInOperation(prisma: PrismaClient, throttle: SignInThrottle) {
  return async function signIn({ username, password, address }: SignInAttempt): Promise<SignInOutcome> {
    // Counted before any lookup: a locked attempt checks no password, known or unknown username.
    const attempt = { account: username, address };
    const locked = await throttle.begin(attempt);
    if (locked) return { outcome: 'locked', retryAfterSeconds: locked.retryAfterSeconds };
    const player = await findPlayerByUsername(prisma, username);
    const valid = await verifyPassword(password, player?.passwordHash ?? (await decoyHash()));
    if (!player || !valid || player.status !== 'active') return { outcome: 'wrong' };
    await throttle.succeeded(attempt);
    return { outcome: 'signedIn', player };
  };
}

export function signInRoutes(
  route: PageApp['route'],
  { config, prisma, store, secure, sessions, metrics }: PlayerClient,
) {
  const csrf = signInCsrf(secure);
  const door = 'player-sign-in';
  const signIn = signInOperation(prisma, signInThrottle(store, door, config.signIn, metrics?.signInLocks(door)));

  route('/signin', {
    GET: (ctx) =>
      sendPage(ctx, 200, signInPage({ csrf: csrf.issue(ctx), returnTo: safeReturnTo(ctx.query.return_to) })),
    POST: async (ctx) => {
      const form = await readForm(ctx);
      const returnTo = safeReturnTo(form.return_to);
      if (!csrf.valid(ctx, form.csrf)) {
        throw new ProblemError('MALFORMED_REQUEST', 'The form expired. Go back and sign in again.');
      }
      const outcome = await signIn({ username: form.username ?? '', password: form.password ?? '', address: ctx.ip });
      const refuse = (status: number, error: string) =>
        sendPage(ctx, status, signInPage({ csrf: csrf.issue(ctx), returnTo, error, username: form.username }));
      switch (outcome.outcome) {
        case 'locked':
          ctx.set('Retry-After', String(outcome.retryAfterSeconds));
          return refuse(429, `Too many sign-in attempts. Try again in ${waitInWords(outcome.retryAfterSeconds)}.`);
        case 'wrong':
          return refuse(401, 'Wrong username or password.');
        case 'signedIn':
          await sessions.start(ctx, { playerId: outcome.player.id });
          csrf.clear(ctx);
          return ctx.redirect(returnTo);
      }
    },
  });
}
