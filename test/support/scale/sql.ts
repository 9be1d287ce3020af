// SQL text the seeding statements share. Every value is derived from the seed and a row's number
// (md5 and sha256 of "<seed>:<kind>:<n>"), never from random(): a statement can recompute what an
// earlier one wrote (an app's id from its number, an account's share of the players) without
// reading it back, and the same seed gives the same platform. Only PostgreSQL's built-in
// functions are used, so PGlite runs the statements too.
import type { ScaleSizes } from './sizes.ts';

export interface Derivation {
  /** A number in [0, 1) of `kind` for the SQL expression `of`. */
  unit(kind: string, of: string): string;
  /** A uuid of `kind` for `of`: the id of row `of` of that kind. */
  uuid(kind: string, of: string): string;
  /** 43 base64url characters (256 bits) of `kind` for `of`: the shape of the provider's ids. */
  token(kind: string, of: string): string;
  /** 64 hex characters: the shape of a SHA-256 digest. */
  hex(kind: string, of: string): string;
  /** The seed's fixed "now", as a timestamptz: every phase ages its rows from the same instant. */
  now: string;
}

const seedPattern = /^[A-Za-z0-9_-]{1,40}$/;
const kindPattern = /^[a-z0-9_]{1,20}$/;

export function derivation(seed: string, now: Date): Derivation {
  if (!seedPattern.test(seed)) throw new Error('a seed is 1 to 40 letters, digits, - and _');
  const text = (kind: string, of: string) => {
    if (!kindPattern.test(kind)) throw new Error(`bad kind ${kind}`);
    return `('${seed}:${kind}:' || (${of}))`;
  };
  const digest = (kind: string, of: string) => `sha256(convert_to(${text(kind, of)}, 'UTF8'))`;
  return {
    unit: (kind, of) => `(('x' || substr(md5(${text(kind, of)}), 1, 8))::bit(32)::bigint::float8 / 4294967296)`,
    uuid: (kind, of) => `md5(${text(kind, of)})::uuid`,
    token: (kind, of) => `rtrim(translate(encode(${digest(kind, of)}, 'base64'), '+/', '-_'), '=')`,
    hex: (kind, of) => `encode(${digest(kind, of)}, 'hex')`,
    now: `'${now.toISOString()}'::timestamptz`,
  };
}

/** Accounts are created over two years, account k at an even step: older accounts come first. */
export const accountCreatedAt = (d: Derivation, k: string, accounts: number) =>
  `(${d.now} - interval '730 days' * (1 - (${k})::float8 / ${accounts}))`;

/** A moment between `from` and `to` (timestamptz expressions), at `unit` of the way. */
export const between = (from: string, to: string, unit: string) => `(${from} + ((${to}) - (${from})) * ${unit})`;

/** A standard normal deviate from two units (Box-Muller). */
const normal = (u1: string, u2: string) => `(sqrt(-2 * ln(${u1} + 1e-9)) * cos(2 * pi() * ${u2}))`;

/**
 * The CTEs `acct_w`, `acct_c`, `acct_e` and `acct`: each account k with its contiguous share of
 * the apps, players and consents (app numbers app_start to app_end - 1, and so on) and its
 * creation time. Shares follow log-normal weights, as real platforms' do: most developers have a
 * few apps and a few dozen test players, a few have hundreds of apps or thousands of players.
 * Apps have σ = 1; players σ = 1.5, correlated with apps (ρ = 0.6); consents follow players.
 * Every 20th account is a guest: guests may not use the console, so they own nothing.
 */
export function accountShares(d: Derivation, { accounts, apps, players, consents }: ScaleSizes): string {
  // The ratio first: the last account's is exactly 1, so the shares add up to the total.
  const share = (total: number, cumulative: string) =>
    `floor(${total}::float8 * (${cumulative} / max(${cumulative}) OVER ()))::bigint`;
  const start = (end: string) => `coalesce(lag(${end}) OVER (ORDER BY k), 0)`;
  return `
  acct_w AS (
    SELECT k, k % 20 = 19 AS guest,
      ${normal(d.unit('acct_a1', 'k'), d.unit('acct_a2', 'k'))} AS z1,
      ${normal(d.unit('acct_p1', 'k'), d.unit('acct_p2', 'k'))} AS z2
    FROM generate_series(0, ${accounts - 1}) AS k
  ),
  acct_c AS (
    SELECT k, guest,
      sum(CASE WHEN guest THEN 0 ELSE exp(z1) END) OVER (ORDER BY k) AS ca,
      sum(CASE WHEN guest THEN 0 ELSE exp(1.5 * (0.6 * z1 + 0.8 * z2)) END) OVER (ORDER BY k) AS cp
    FROM acct_w
  ),
  acct_e AS (
    SELECT k, guest, ${share(apps, 'ca')} AS app_end, ${share(players, 'cp')} AS player_end,
      ${share(consents, 'cp')} AS consent_end
    FROM acct_c
  ),
  acct AS (
    SELECT k, guest, ${accountCreatedAt(d, 'k', accounts)} AS created_at,
      ${start('app_end')} AS app_start, app_end, app_end - ${start('app_end')} AS app_count,
      ${start('player_end')} AS player_start, player_end, player_end - ${start('player_end')} AS player_count,
      ${start('consent_end')} AS consent_start, consent_end - ${start('consent_end')} AS consent_count
    FROM acct_e
  )`;
}
