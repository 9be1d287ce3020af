// A steady load at a fixed, modest rate over every kind of call an app, a developer and a player
// make, through a topology's gateway: each loop is one app user (a sandbox player of their own)
// and paces its rounds, so a failure means a dropped request, not a starved machine. A round is a
// client-credentials token, /cities with it, its revocation, /me and a refresh with the player's
// tokens, the console's app list and the player client's sign-in page; every few rounds the player
// allows the app again (authorization code with PKCE, which also sends a consent webhook).
import { allowOverHttp } from './connected-apps.ts';
import { consoleCall } from './console-api.ts';
import { type Answer, call } from './http.ts';
import { basicAuth, type UserTokens } from './oauth.ts';
import type { consoleSetup, TestTopology } from './topology.ts';

export interface LoadCounts {
  /** Requests answered as expected, by operation. */
  ok: Record<string, number>;
  /**
   * What went wrong, each whole: `operation: status request_id=… body` (the body uncut, so a
   * Problem's request_id and detail are there), or `operation: error` for a request with no answer.
   */
  failures: string[];
  /** The request ids of the failed answers (X-Request-ID), to find them in the topology's logs. */
  failedRequestIds: string[];
  /** Answers with a 5xx status (also in failures). */
  serverErrors: number;
}

/** Records each answer of a load: 200 counts as ok, anything else is kept whole as a failure. */
export function loadRecorder() {
  const counts: LoadCounts = { ok: {}, failures: [], failedRequestIds: [], serverErrors: 0 };
  const attempt = async (operation: string, send: () => Promise<Answer>): Promise<Answer | null> => {
    try {
      const answer = await send();
      if (answer.status === 200) counts.ok[operation] = (counts.ok[operation] ?? 0) + 1;
      else {
        if (answer.status >= 500) counts.serverErrors += 1;
        const requestId = answer.headers.get('x-request-id') ?? '(none)';
        counts.failedRequestIds.push(requestId);
        counts.failures.push(`${operation}: ${answer.status} request_id=${requestId} ${answer.text}`);
      }
      return answer.status === 200 ? answer : null;
    } catch (error) {
      counts.failures.push(`${operation}: ${String((error as Error).cause ?? (error as Error).message ?? error)}`);
      return null;
    }
  };
  const total = () => Object.values(counts.ok).reduce((sum, n) => sum + n, 0) + counts.failures.length;
  return { counts, attempt, total };
}

export interface SteadyLoad {
  counts: LoadCounts;
  /** All requests answered so far. */
  total(): number;
  /** Stops after the rounds under way; resolves with the counts and each loop's latest user tokens. */
  stop(): Promise<{ counts: LoadCounts; users: UserTokens[] }>;
}

export interface SteadyLoadOptions {
  /** Each loop starts a round at most this often. */
  roundMs?: number;
  /** Every how many rounds a loop's player allows the app again (code + PKCE). */
  allowEvery?: number;
}

type Setup = Awaited<ReturnType<typeof consoleSetup>>;

/** A page as a browser loads it (call() holds API answers to the contract's JSON form). */
async function page(url: string): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual' });
  const text = await response.text();
  const html = (response.headers.get('content-type') ?? '').startsWith('text/html');
  return { status: html ? response.status : 0, headers: response.headers, text, json: null };
}

export function steadyLoad(
  topology: Pick<TestTopology, 'base' | 'console' | 'playerClient'>,
  setup: Setup,
  { roundMs = 400, allowEvery = 8 }: SteadyLoadOptions = {},
): SteadyLoad {
  let running = true;
  const { counts, attempt, total } = loadRecorder();
  const { app } = setup;
  const form = (body: Record<string, string>) => ({
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams(body).toString(),
  });
  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const users: UserTokens[] = [];

  const loop = async (index: number, player: { username: string; password: string }) => {
    let user = await allowOverHttp(topology.base, app, player);
    users[index] = user;
    for (let round = 1; running; round += 1) {
      const started = Date.now();
      const token = (
        await attempt('client_credentials', () =>
          call(topology.base, '/oauth/token', form({ grant_type: 'client_credentials' })),
        )
      )?.json?.access_token as string | undefined;
      if (token) {
        await attempt('/cities', () => call(topology.base, '/cities?limit=100', bearer(token)));
        await attempt('revocation', () => call(topology.base, '/oauth/revoke', form({ token })));
      }
      await attempt('/me', () => call(topology.base, '/me', bearer(user.accessToken)));
      const refreshed = await attempt('refresh', () =>
        call(topology.base, '/oauth/token', form({ grant_type: 'refresh_token', refresh_token: user.refreshToken })),
      );
      if (refreshed) {
        user = { ...user, accessToken: refreshed.json.access_token, refreshToken: refreshed.json.refresh_token };
        users[index] = user;
      }
      await attempt('console', () => consoleCall(topology.console, 'GET', '/apps', { token: setup.developer.token }));
      await attempt('player page', () => page(`${topology.playerClient}/signin`));
      if (round % allowEvery === 0) {
        try {
          user = await allowOverHttp(topology.base, app, player);
          users[index] = user;
          counts.ok['code + PKCE'] = (counts.ok['code + PKCE'] ?? 0) + 1;
        } catch (error) {
          counts.failures.push(`code + PKCE: ${(error as Error).message}`);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, roundMs - (Date.now() - started))));
    }
  };
  const done = Promise.all(setup.players.map((player, index) => loop(index, player)));
  return {
    counts,
    total,
    async stop() {
      running = false;
      await done;
      return { counts, users };
    },
  };
}
