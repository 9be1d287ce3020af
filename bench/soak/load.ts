// The mixed load, at most one request in flight per loop (chains + 2 loops, under ~20 in all):
//   - refresh chains: each a player's consent (code + PKCE through the real consent screen, its
//     code redeemed) whose refresh token is rotated over and over, /me now and then; after a 503
//     or no answer it presents its CURRENT token again, as a client would. Now and then a chain
//     ends its family on purpose: a deliberate reuse of a token already rotated, or a revocation
//     (RFC 7009) retried until answered 200; either way it then checks the family is dead and
//     starts over with a new consent;
//   - client credentials, each token used on /cities;
//   - console writes: the app's name edited through the console API.
import { authorizationRequest, basicAuth } from '@devplat/test/oauth';
import { openConsentScreen } from '@devplat/test/players';
import { decodeJwt } from 'jose';
import { type Request, type Sent, send } from './client.ts';
import type { History } from './history.ts';
import type { Random } from './random.ts';

export interface LoadTarget {
  base: string;
  console: string;
  app: { clientId: string; clientSecret: string; redirectUri: string };
  developerToken: string;
  players: { username: string; password: string }[];
}

const scope = 'city.public.read profile.basic.read';
/** Per chain step: a deliberate reuse, a revocation, a /me (else a refresh). */
const odds = { reuse: 0.008, revoke: 0.008, me: 0.25 };
const stepMs = 1_200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A retry after a 5xx or no answer: the client presents the same thing again. */
const retryable = (sent: Sent) => sent.entry.status === null || sent.entry.status >= 500;

export function startLoad(history: History, target: LoadTarget, random: Random) {
  let running = true;
  let nextChain = 1;
  const { base, app } = target;
  const tokenUrl = `${base}/oauth/token`;
  const form = (fields: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams(fields).toString(),
  });
  const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });
  const tokens = (json: { access_token?: string; refresh_token?: string }) => ({
    access: json.access_token,
    refresh: json.refresh_token,
    consent: json.access_token ? (decodeJwt(json.access_token).cns as string | undefined) : undefined,
  });
  const grant = (op: Request['op'], chain: number, presented: string, fields: Record<string, string>, expect = [200]) =>
    send(history, {
      op,
      url: tokenUrl,
      init: form(fields),
      chain,
      presented,
      expect,
      contractPath: '/oauth/token',
      received: tokens,
    });
  /** Sends until answered (not a 5xx, not silence), at most `tries` times, while the load runs. */
  const untilAnswered = async (make: () => Promise<Sent>, tries = 8): Promise<Sent> => {
    let sent = await make();
    for (let attempt = 1; attempt < tries && running && retryable(sent); attempt++) {
      await sleep(500 * attempt);
      sent = await make();
    }
    return sent;
  };

  /** The player allows the app on the consent screen; resolves with the code's redemption form, or null. */
  const allow = async (chain: number, player: { username: string; password: string }) => {
    const start = history.now();
    const record = (status: number | null, error?: string) =>
      history.record({ op: 'authorize', chain, start, end: history.now(), status, error, expect: [302] });
    try {
      const request = await authorizationRequest(base, app.clientId, app.redirectUri, scope);
      const screen = await openConsentScreen(request.url, player);
      const answer = screen.redirected ? null : await screen.answer('allow');
      const location = screen.redirected?.href ?? answer?.headers.get('location');
      const code = location ? new URL(location, base).searchParams.get('code') : null;
      record(answer?.status ?? 302, code ? undefined : 'no code in the redirect');
      return code
        ? { grant_type: 'authorization_code', code, redirect_uri: app.redirectUri, code_verifier: request.verifier }
        : null;
    } catch (error) {
      const message = (error as Error).message;
      const status = /(?:answered|failed:) (\d{3})/.exec(message)?.[1];
      record(status ? Number(status) : null, status ? message.split(':')[0] : (error as Error).name);
      return null;
    }
  };

  /** A new consent and its tokens, retrying as a client would; null if it could not be had. */
  const newFamily = async (chain: number, player: { username: string; password: string }) => {
    const redemption = await allow(chain, player);
    if (!redemption) return null;
    const sent = await untilAnswered(() => grant('code', chain, redemption.code, redemption));
    return sent.entry.status === 200 ? { access: sent.json.access_token, refresh: sent.json.refresh_token } : null;
  };

  /** After a family's end: /me and the current refresh token must both be refused now. */
  const probeEnded = async (chain: number, family: { access: string; refresh: string }) => {
    await send(history, {
      op: 'me',
      url: `${base}/me`,
      init: bearer(family.access),
      chain,
      expect: [401, 403],
      contractPath: '/me',
    });
    await grant(
      'refresh',
      chain,
      family.refresh,
      { grant_type: 'refresh_token', refresh_token: family.refresh },
      [400],
    );
  };

  const chainLoop = async (player: { username: string; password: string }) => {
    while (running) {
      const chain = nextChain++;
      const family = await newFamily(chain, player);
      if (!family) {
        await sleep(1_000);
        continue;
      }
      const rotated: string[] = [];
      for (;;) {
        await sleep(random.around(stepMs));
        if (!running) return;
        const roll = random();
        if (roll < odds.reuse && rotated.length) {
          const old = random.pick(rotated);
          await untilAnswered(
            () => grant('reuse', chain, old, { grant_type: 'refresh_token', refresh_token: old }, [400]),
            4,
          );
          await probeEnded(chain, family);
          break;
        }
        if (roll < odds.reuse + odds.revoke) {
          const token = random() < 0.5 ? family.refresh : family.access;
          const revoke = () =>
            send(history, {
              op: 'revoke',
              url: `${base}/oauth/revoke`,
              init: form({ token }),
              chain,
              presented: token,
              expect: [200],
              contractPath: '/oauth/revoke',
            });
          if ((await untilAnswered(revoke, 20)).entry.status === 200) await probeEnded(chain, family);
          break;
        }
        if (roll < odds.reuse + odds.revoke + odds.me) {
          await send(history, {
            op: 'me',
            url: `${base}/me`,
            init: bearer(family.access),
            chain,
            expect: [200],
            contractPath: '/me',
          });
          continue;
        }
        const sent = await grant('refresh', chain, family.refresh, {
          grant_type: 'refresh_token',
          refresh_token: family.refresh,
        });
        if (sent.entry.status === 200 && sent.json?.refresh_token) {
          rotated.push(family.refresh);
          family.refresh = sent.json.refresh_token;
          family.access = sent.json.access_token;
        } else if (!retryable(sent)) {
          break; // refused: this family is over (the checker judges whether it should have been)
        }
      }
    }
  };

  const clientCredentialsLoop = async () => {
    while (running) {
      const started = Date.now();
      const issued = await send(history, {
        op: 'client_credentials',
        url: tokenUrl,
        init: form({ grant_type: 'client_credentials' }),
        expect: [200],
        contractPath: '/oauth/token',
      });
      const token = issued.json?.access_token as string | undefined;
      if (token) {
        await send(history, {
          op: 'cities',
          url: `${base}/cities?limit=100`,
          init: bearer(token),
          expect: [200],
          contractPath: '/cities',
        });
      }
      await sleep(Math.max(0, 500 - (Date.now() - started)));
    }
  };

  const consoleLoop = async () => {
    for (let edit = 1; running; edit++) {
      await send(history, {
        op: 'console',
        url: `${target.console}/api/apps/${app.clientId}`,
        init: {
          method: 'PATCH',
          headers: { authorization: `Bearer ${target.developerToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Soak App ${edit}` }),
        },
        expect: [200],
      });
      await sleep(random.around(2_000));
    }
  };

  const done = Promise.all([
    ...target.players.map((player) => chainLoop(player)),
    clientCredentialsLoop(),
    consoleLoop(),
  ]);
  return {
    /** Stops after the requests under way (retries are cut short). */
    async stop() {
      running = false;
      await done;
    },
  };
}
