// The authorization-code flow as a load: what a player's browser and the app do for one flow,
// over plain HTTP, the same requests against the platform and against its bare equivalent
// (servers.ts code-bare). A flow is three round trips: the consent screen (GET /oauth/authorize on
// the player client, with a session cookie), Allow (POST /oauth/authorize, answered with a redirect
// carrying the code), and the code's redemption with its PKCE verifier (POST /oauth/token).
// Players sign in once, before the load: a flow never hashes a password.
import { createHash, randomBytes } from 'node:crypto';
import { formField, PlayerAgent } from '@devplat/test/connected-apps';

/** Where and as whom to run flows. */
export interface FlowTarget {
  /** The origin of the consent screen and of sign-in. */
  playerOrigin: string;
  tokenUrl: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  /** The app's Authorization header at the token endpoint. */
  authorization: string;
  /** The players the flows run as, one per concurrent worker. */
  players: { username: string; password: string }[];
  backend: string;
  /** What the server runs with (servers.ts settingsOf); absent for a bare app. */
  settings?: string;
}

/** The token endpoint's answer to a redeemed code. */
export interface TokenAnswer {
  access_token: string;
  refresh_token: string;
}

/** The three requests of a flow, in order. */
export const flowSteps = ['consent screen', 'Allow', 'token'] as const;
export type FlowStep = (typeof flowSteps)[number];

/** A step answered other than as a flow expects: an answer, not a failure to get one. */
export class FlowRefused extends Error {}

/** Signs every player in, a few at a time (the sign-in throttle counts concurrent attempts per address). */
export async function signInAll(target: FlowTarget, players = target.players, parallel = 4): Promise<PlayerAgent[]> {
  const agents = players.map(() => new PlayerAgent(target.playerOrigin));
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < players.length; i = next++) {
      await (agents[i] as PlayerAgent).signIn(players[i] as { username: string; password: string });
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, players.length) }, worker));
  return agents;
}

/**
 * One flow as a signed-in player: consent screen, Allow, code redemption with PKCE S256. `lap`, if
 * given, is told as each of the three answers has been read (an open loop times each request).
 */
export async function codeFlow(
  target: FlowTarget,
  agent: PlayerAgent,
  lap: (step: FlowStep) => void = () => {},
): Promise<TokenAnswer> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: target.clientId,
    redirect_uri: target.redirectUri,
    scope: target.scope,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const screen = await agent.get(`/oauth/authorize?${query}`);
  const html = await screen.text();
  if (screen.status !== 200) throw new FlowRefused(`consent screen answered ${screen.status}: ${html.slice(0, 300)}`);
  lap('consent screen');
  const allow = await agent.post('/oauth/authorize', {
    request: formField(html, 'request'),
    csrf: formField(html, 'csrf'),
    decision: 'allow',
  });
  const allowed = await allow.text(); // read, so the connection is reused
  const location = allow.headers.get('location');
  if (allow.status !== 302 || !location) {
    throw new FlowRefused(`Allow answered ${allow.status}: ${allowed.slice(0, 300)}`);
  }
  lap('Allow');
  const back = new URL(location);
  const code = back.searchParams.get('code');
  if (!code || back.searchParams.get('state') !== state) throw new FlowRefused(`Allow sent the player to ${location}`);
  const redeemed = await fetch(target.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: target.authorization },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: target.redirectUri,
      code_verifier: verifier,
    }).toString(),
  });
  const body = await redeemed.text();
  if (redeemed.status !== 200) throw new FlowRefused(`the token endpoint answered ${redeemed.status}: ${body}`);
  lap('token');
  const answer = JSON.parse(body) as TokenAnswer;
  if (!answer.access_token || !answer.refresh_token) throw new FlowRefused(`no tokens in ${body}`);
  return answer;
}
