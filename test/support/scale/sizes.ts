// How big a seeded platform is: the counts asked for, and those derived from them when not given.

export interface ScaleSizes {
  /** Developer accounts (1 in 20 a guest, with neither apps nor players). */
  accounts: number;
  apps: number;
  /** Sandbox players. */
  players: number;
  /** Consent receipts, active and ended. */
  consents: number;
  audit: number;
  /** consent.granted events of the latest consents (each delivered once where its app has a webhook URL). */
  events: number;
  /** App access tokens revoked before they expire (they live 5 minutes: the janitor keeps few). */
  revokedTokens: number;
  /** Live refresh-token families in Redis, one per active consent at most. */
  families: number;
  /** Live player sessions in Redis. */
  sessions: number;
}

export const fullScale = { apps: 100_000, players: 1_000_000, consents: 1_000_000, audit: 1_000_000 } as const;

/** The sizes with every count not given derived from those that are (defaults: `fullScale`). */
export function scaleSizes(given: Partial<ScaleSizes> = {}): ScaleSizes {
  const apps = given.apps ?? fullScale.apps;
  const players = given.players ?? fullScale.players;
  const consents = given.consents ?? fullScale.consents;
  const sizes: ScaleSizes = {
    accounts: given.accounts ?? Math.max(1, Math.ceil(apps / 4)),
    apps,
    players,
    consents,
    audit: given.audit ?? fullScale.audit,
    events: given.events ?? Math.floor(consents / 10),
    revokedTokens: given.revokedTokens ?? Math.min(1_000, Math.ceil(apps / 100)),
    // Every active consent has its family unless asked otherwise: about 70% of the receipts.
    families: given.families ?? consents,
    sessions: given.sessions ?? Math.floor(players / 10),
  };
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number ≥ 0 (got ${value})`);
  }
  if (sizes.accounts === 0 && (sizes.apps > 0 || sizes.players > 0)) throw new Error('apps and players need accounts');
  if (sizes.events > sizes.consents) throw new Error('events are of consents: at most as many as consents');
  return sizes;
}
