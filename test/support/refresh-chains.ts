// Refresh chains, as apps run them: each chain is one player's refresh-token family, refreshed over
// and over with its current token; after a 503 (or no answer) the client retries that same token,
// as the contract allows. Every answer is kept with its time, so a test can tell when a chain was
// served again after a fault and whether any chain was ever refused.
import { refresh } from './connected-apps.ts';
import type { Answer } from './http.ts';
import type { AppClient } from './oauth.ts';

export interface ChainAnswer {
  /** The answer's status; 0 for a request that got no answer. */
  status: number;
  /** When it came (ms since the epoch). */
  at: number;
  /** The OAuth error or Problem code of a refusal. */
  code?: string;
}

export interface RefreshChain {
  /** The refresh token the chain holds now: the one last answered 200. */
  current: string;
  answers: ChainAnswer[];
  /** The first refusal other than a 503, which ends the chain: its family is gone. */
  refused: ChainAnswer | null;
}

export interface RunningChains {
  chains: RefreshChain[];
  /** Refreshes answered 200 so far, over every chain. */
  refreshed(): number;
  /** Stops after the requests under way. */
  stop(): Promise<RefreshChain[]>;
}

/** Runs one chain per refresh token, each pausing `pauseMs` between its requests. */
export function runRefreshChains(base: string, app: AppClient, tokens: string[], pauseMs = 20): RunningChains {
  let running = true;
  const chains: RefreshChain[] = tokens.map((current) => ({ current, answers: [], refused: null }));
  const loop = async (chain: RefreshChain) => {
    while (running && !chain.refused) {
      let answer: Answer | null = null;
      try {
        answer = await refresh(base, app, chain.current);
      } catch {
        // No answer: the client cannot know, and retries the same token.
      }
      const kept: ChainAnswer = { status: answer?.status ?? 0, at: Date.now() };
      if (answer && answer.status !== 200) kept.code = answer.json?.error ?? answer.json?.code;
      chain.answers.push(kept);
      if (answer?.status === 200) chain.current = answer.json.refresh_token;
      else if (answer && answer.status !== 503) chain.refused = kept;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  };
  const done = Promise.all(chains.map(loop));
  return {
    chains,
    refreshed: () => chains.reduce((sum, chain) => sum + chain.answers.filter((a) => a.status === 200).length, 0),
    stop: async () => {
      running = false;
      await done;
      return chains;
    },
  };
}

/** When each chain was first answered 200 at or after `since` (null: not yet). */
export function firstServedSince(chains: RefreshChain[], since: number): (number | null)[] {
  return chains.map((chain) => chain.answers.find((answer) => answer.status === 200 && answer.at >= since)?.at ?? null);
}
