// The mixed load, at most one request in flight per loop (chains + 3 loops, under ~20 in all), its
// pace multiplied by the load level (1: about 17 requests a second):
//   - refresh chains: each a player's consent (code + PKCE through the real consent screen, its
//     code redeemed) whose refresh token is rotated over and over, /me now and then; after a 503
//     or no answer it presents its CURRENT token again, as a client would. Now and then a chain
//     ends its family on purpose: a deliberate reuse of a token already rotated, or a revocation
//     (RFC 7009) retried until answered 200; either way it then checks the family is dead and
//     starts over with a new consent. When the load stops, every family still live refreshes and
//     reads /me once more (`final`);
//   - client credentials, each token used on /cities;
//   - console writes: the app's name edited through the console API;
//   - acknowledged writes (writes.ts): a suspension and a secret rotation of a second app.
import { authorizationRequest, basicAuth } from '@devplat/test/oauth';
import { openConsentScreen } from '@devplat/test/players';
import { decodeJwt } from 'jose';
import { answered, type Request, retryable, type Sent, send, sleep } from './client.ts';
import type { Entry, History } from './history.ts';
import type { Random } from './random.ts';
import { writesLoop } from './writes.ts';

export interface LoadTarget {
  base: string;
  console: string;
  app: { clientId: string; clientSecret: string; redirectUri: string };
  developerToken: string;
  players: { username: string; password: string }[];
  /** The admin API and an operator token (write role). */
  admin: { url: string; token: string };
  /** The app the acknowledged-writes loop suspends and rotates the secret of. */
  writes: { clientId: string; clientSecret: string; secretId: string };
}

const scope = 'city.public.read profile.basic.read';
/** Per chain step: a deliberate reuse, a revocation, a /me (else a refresh). */
const odds = { reuse: 0.008, revoke: 0.008, me: 0.25 };
const stepMs = 1_200;

interface Family {
  access: string;
  refresh: string;
}

export function startLoad(history: History, target: LoadTarget, random: Random, level: number) {
  let running = true;
  let nextChain = 1;
  /** Families nothing ended (nor possibly ended), by chain: checked once more when the load stops. */
  const live = new Map<number, Family>();
  const pace = (ms: number) => random.around(ms / level);
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
  type Marks = Pick<Request, 'final' | 'acknowledged'>;
  const grant = (
    op: Request['op'],
    chain: number,
    presented: string,
    fields: Record<string, string>,
    expect = [200],
    marks: Marks = {},
  ) =>
    send(history, {
      op,
      url: tokenUrl,
      init: form(fields),
      chain,
      presented,
      expect,
      ...marks,
      contractPath: '/oauth/token',
      received: tokens,
    });
  const me = (chain: number, family: Family, expect: number[], marks: Marks = {}) =>
    send(history, {
      op: 'me',
      url: `${base}/me`,
      init: bearer(family.access),
      chain,
      expect,
      ...marks,
      contractPath: '/me',
    });
  const refresh = (chain: number, family: Family, expect: number[], marks: Marks = {}) =>
    grant(
      'refresh',
      chain,
      family.refresh,
      { grant_type: 'refresh_token', refresh_token: family.refresh },
      expect,
      marks,
    );
  const untilAnswered = (make: () => Promise<Sent>, tries = 8) => answered(make, () => running, tries);

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

  /** Families whose end was acknowledged, kept to be checked again after each fault. */
  const ended: { chain: number; family: Family; acknowledged: Entry['acknowledged']; at: number }[] = [];
  /** After a family's end: /me and the current refresh token must both be refused now (and after any fault). */
  const probeEnded = async (chain: number, family: Family, end: Entry, write: string) => {
    live.delete(chain);
    ended.push({ chain, family, acknowledged: { write, seq: end.seq }, at: end.end });
    await me(chain, family, [401, 403]);
    await refresh(chain, family, [400]);
  };

  // Each chain's first family, had or given up on: the faults wait for it (established, below).
  let firstFamilies = 0;
  let established = () => {};
  const everyChainStarted = new Promise<void>((resolve) => {
    established = resolve;
  });
  const chainLoop = async (player: { username: string; password: string }) => {
    for (let first = true; running; first = false) {
      const chain = nextChain++;
      const family = await newFamily(chain, player);
      if (first && ++firstFamilies === target.players.length) established();
      if (!family) {
        await sleep(1_000);
        continue;
      }
      live.set(chain, family);
      const rotated: string[] = [];
      for (;;) {
        await sleep(pace(stepMs));
        if (!running) return;
        const roll = random();
        if (roll < odds.reuse && rotated.length) {
          const old = random.pick(rotated);
          const reuse = await untilAnswered(
            () => grant('reuse', chain, old, { grant_type: 'refresh_token', refresh_token: old }, [400]),
            4,
          );
          if (reuse.entry.status === null) live.delete(chain); // it may have ended the family
          if (retryable(reuse)) continue; // not answered: nothing ended it (or it is noted unknown)
          await probeEnded(chain, family, reuse.entry, 'the end of a family by a reuse');
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
          const revoked = await untilAnswered(revoke, 20);
          if (revoked.entry.status === 200) await probeEnded(chain, family, revoked.entry, 'a revocation');
          else if (revoked.entry.status === null) live.delete(chain); // it may have ended the family
          // else: cut short by the load's end, the family is still live
          break;
        }
        if (roll < odds.reuse + odds.revoke + odds.me) {
          await me(chain, family, [200]);
          continue;
        }
        const sent = await refresh(chain, family, [200]);
        if (sent.entry.status === 200 && sent.json?.refresh_token) {
          rotated.push(family.refresh);
          family.refresh = sent.json.refresh_token;
          family.access = sent.json.access_token;
        } else if (!retryable(sent)) {
          live.delete(chain);
          break; // refused: this family is over (the checker judges whether it should have been)
        } else if (sent.entry.status === null) live.delete(chain); // its token may have been used
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
      await sleep(Math.max(0, 500 / level - (Date.now() - started)));
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
      await sleep(pace(2_000));
    }
  };

  const writes = writesLoop(history, target, { running: () => running, pace });
  const done = Promise.all([
    ...target.players.map((player) => chainLoop(player)),
    clientCredentialsLoop(),
    consoleLoop(),
    writes.done,
  ]);
  return {
    /**
     * Once every chain has had its first family (or given up on it): until then the load is the
     * platform's start, sign-ins and first consents, not the steady load a fault is measured in.
     */
    established: everyChainStarted,
    /**
     * After a fault: every end acknowledged since `since` (a family's, a secret's, the app's
     * suspension) is checked again, so that one the fault lost (a failover to a standby that
     * never had it) shows as a 2xx where a refusal is due.
     */
    async recheck(since: number) {
      for (const { chain, family, acknowledged } of ended.filter((each) => each.at >= since)) {
        await me(chain, family, [401, 403], { acknowledged });
        await refresh(chain, family, [400], { acknowledged });
      }
      await writes.recheck(since);
    },
    /** Stops after the requests under way (retries are cut short), then checks every live family once more. */
    async stop() {
      running = false;
      await done;
      for (const [chain, family] of live) {
        const sent = await refresh(chain, family, [200], { final: true });
        if (sent.entry.status === 200) family.access = sent.json.access_token;
        await me(chain, family, [200], { final: true });
      }
    },
  };
}
