// The Redis side of a seeded platform, written by the platform's own code: each active consent's
// grant, its redeemed code and its refresh-token family through the auth service's adapters, player
// sessions through the player client's session store, app version counters through the app
// directory. So the keys and values are exactly what the platform writes, whatever its key format
// becomes; only the payloads (oidc-provider's, captured from a real code flow and refresh) are
// built here. The adapters are imported from their files: @devplat/auth exports the service, not them.
import { createHash, randomBytes } from 'node:crypto';
import { appDirectory } from '@devplat/app-directory';
import { limits } from '@devplat/contract';
import type { Database } from '@devplat/db';
import { pairwiseSubject } from '@devplat/domain/consents';
import type { KeyValueStore } from '@devplat/kv';
import { storeAdapter, storeFamilies } from '../../../services/auth/src/adapter.ts';
import { playerSessions } from '../../../services/auth/src/player/session.ts';
import { refreshTokenAdapter, refreshTokenId } from '../../../services/auth/src/refresh-token-adapter.ts';

export interface RedisSeed {
  database: Database;
  store: KeyValueStore;
  seed: string;
  now: Date;
  /** The PAIRWISE_SECRET the families' subjects are made with. */
  pairwiseSecret: string;
  /** BASE_URL: the resource every token is for. */
  resource: string;
  /** Called now and then with the rows written so far. */
  progress(rows: number): void;
}

/** Families written at once: ioredis sends their commands down one connection without waiting (a pipeline). */
const inFlight = 500;
const dayS = 24 * 60 * 60;

/** [0, 1) from the seed, a kind and an id: the same figure for the same row on every run. */
function unitOf(seed: string, kind: string, id: string): number {
  return createHash('md5').update(`${seed}:${kind}:${id}`).digest().readUInt32BE(0) / 2 ** 32;
}

interface ActiveConsent {
  id: string;
  grant_id: string;
  player_id: string;
  scopes: string[];
  granted_at: Date;
  client_id: string;
  redirect_uri: string;
}

/** Rows of a keyset walk (by id), `batch` at a time, until `limit` rows or the end. */
async function* walk<Row extends { id: string }>(
  database: Database,
  statement: string,
  limit: number,
  batch = 5_000,
): AsyncGenerator<Row[]> {
  let after = '00000000-0000-0000-0000-000000000000';
  let seen = 0;
  while (seen < limit) {
    const rows = await database.query<Row>(statement, [after, Math.min(batch, limit - seen)]);
    if (rows.length === 0) return;
    seen += rows.length;
    after = (rows.at(-1) as Row).id;
    yield rows;
  }
}

/** When a family was last used: a family lives 30 days from its last rotation, so an old one was used lately. */
function lastUse(seed: string, consent: ActiveConsent, nowS: number): { at: number; rotations: number } {
  const granted = Math.floor(consent.granted_at.getTime() / 1000);
  const age = nowS - granted;
  const u = unitOf(seed, 'family_used', consent.id);
  const r = unitOf(seed, 'family_rotations', consent.id);
  if (age >= limits.refreshTokenSeconds) {
    return { at: nowS - Math.floor(u * limits.refreshTokenSeconds), rotations: 1 + Math.floor(r * 60) };
  }
  const rotations = Math.floor(r * Math.min(30, age / dayS));
  return { at: rotations === 0 ? granted : granted + Math.floor(u * age), rotations };
}

/**
 * One live family per active consent, up to `limit`: the grant, the authorization code and its
 * consumed mark while the platform keeps them (31 days from the consent), and the family's current
 * refresh token, as the Allow, the redemption and the rotations since left them. The times to live
 * are those left at the seed's "now", but a code is kept its full 31 days (the adapter sets that).
 */
export async function seedRefreshFamilies(seed: RedisSeed, limit: number): Promise<number> {
  const { store, database, pairwiseSecret, resource } = seed;
  const families = storeFamilies(store, {
    grantRevoked: () => Promise.reject(new Error('seeding revokes nothing')),
  });
  const Adapter = storeAdapter(store, families);
  const grants = new Adapter('Grant');
  const codes = new Adapter('AuthorizationCode');
  const refreshTokens = refreshTokenAdapter(store, families);
  const nowS = Math.floor(seed.now.getTime() / 1000);
  const codeMemorySeconds = limits.refreshTokenSeconds + dayS;

  const write = async (consent: ActiveConsent) => {
    const granted = Math.floor(consent.granted_at.getTime() / 1000);
    const used = lastUse(seed.seed, consent, nowS);
    const exp = used.at + limits.refreshTokenSeconds;
    const ttl = Math.max(1, exp - nowS);
    const accountId = pairwiseSubject(pairwiseSecret, consent.client_id, consent.player_id);
    const { client_id: clientId, grant_id: grantId } = consent;
    const scope = consent.scopes.join(' ');
    await grants.upsert(
      grantId,
      { iat: granted, exp, accountId, clientId, kind: 'Grant', jti: grantId, resources: { [resource]: scope } },
      ttl,
    );
    if (nowS - granted < codeMemorySeconds) {
      const code = `sva_${randomBytes(32).toString('base64url')}`;
      await codes.upsert(
        code,
        {
          iat: granted,
          exp: granted + limits.authorizationCodeSeconds,
          accountId,
          grantId,
          redirectUri: consent.redirect_uri,
          codeChallenge: randomBytes(32).toString('base64url'),
          codeChallengeMethod: 'S256',
          scope,
          resource,
          expiresWithSession: false,
          kind: 'AuthorizationCode',
          jti: code,
          clientId,
        },
        limits.authorizationCodeSeconds,
      );
      await codes.consume(code);
    }
    const id = refreshTokenId(grantId, used.rotations);
    await refreshTokens.upsert(
      id,
      {
        iat: used.at,
        exp,
        accountId,
        expiresWithSession: false,
        iiat: granted,
        grantId,
        gty: used.rotations ? 'authorization_code refresh_token' : 'authorization_code',
        resource,
        rotations: used.rotations,
        scope,
        kind: 'RefreshToken',
        jti: id,
        clientId,
      },
      ttl,
    );
  };

  let written = 0;
  const statement = `
    SELECT c.id::text AS id, c.grant_id, c.player_id::text AS player_id, c.scopes, c.granted_at, a.client_id,
      a.redirect_uris[1] AS redirect_uri
    FROM consents c JOIN apps a ON a.id = c.app_id
    WHERE c.status = 'active' AND c.id > $1::uuid ORDER BY c.id LIMIT $2`;
  for await (const rows of walk<ActiveConsent>(database, statement, limit)) {
    for (let at = 0; at < rows.length; at += inFlight) {
      await Promise.all(rows.slice(at, at + inFlight).map(write));
    }
    written += rows.length;
    seed.progress(written);
  }
  return written;
}

/** `count` signed-in players, spread evenly over the active ones (a session lives 12 hours). */
export async function seedPlayerSessions(seed: RedisSeed, count: number, players: number): Promise<number> {
  const sessions = playerSessions(seed.store, true).store;
  const every = Math.max(1, Math.floor((players * 0.98) / Math.max(1, count)));
  const statement = `SELECT id::text AS id FROM sandbox_players WHERE status = 'active' AND id > $1::uuid ORDER BY id LIMIT $2`;
  let started = 0;
  let seen = 0;
  for await (const rows of walk<{ id: string }>(seed.database, statement, Number.MAX_SAFE_INTEGER)) {
    const chosen = rows.filter((_, index) => (seen + index) % every === 0).slice(0, count - started);
    seen += rows.length;
    for (let at = 0; at < chosen.length; at += inFlight) {
      await Promise.all(chosen.slice(at, at + inFlight).map(({ id }) => sessions.start({ playerId: id })));
    }
    started += chosen.length;
    seed.progress(started);
    if (started >= count) break;
  }
  return started;
}

/**
 * The version counter of every app its developer or an operator has changed since it was made
 * (about 60%): the one kind of key the platform keeps without a time to live.
 */
export async function seedAppVersions(seed: RedisSeed, apps: number): Promise<number> {
  const directory = appDirectory(seed.database.prisma, seed.store);
  const statement = `SELECT id::text AS id, client_id FROM apps WHERE id > $1::uuid ORDER BY id LIMIT $2`;
  let bumped = 0;
  for await (const rows of walk<{ id: string; client_id: string }>(seed.database, statement, apps)) {
    const changed = rows.filter(({ id }) => unitOf(seed.seed, 'app_changed', id) < 0.6);
    for (let at = 0; at < changed.length; at += inFlight) {
      await Promise.all(changed.slice(at, at + inFlight).map(({ client_id }) => directory.changed(client_id)));
    }
    bumped += changed.length;
    seed.progress(bumped);
  }
  return bumped;
}
