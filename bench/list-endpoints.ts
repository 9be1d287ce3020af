// The list and search endpoints bench:lists times, each on the rows that make it work hardest: the
// account with the most apps or players, the app with the most consents or the longest history.
import type { Subjects } from '@devplat/test/scale/subjects';

/** Whose console session calls it (the console lists only the signed-in developer's own rows). */
export type Signer = 'mostApps' | 'mostPlayers' | 'typical' | 'popularOwner' | 'historicOwner';

export interface Endpoint {
  name: string;
  door: 'admin' | 'console';
  /** Under {admin}/admin/v1 or {console}/api. */
  path: string;
  /** The console session it is called with. */
  as?: Signer;
  /** Time the page this many pages after the first (following next_cursor), not the first. */
  pagesIn?: number;
}

const q = encodeURIComponent;

export function listEndpoints(s: Subjects): Endpoint[] {
  const admin = (name: string, path: string, pagesIn = 0): Endpoint => ({ name, door: 'admin', path, pagesIn });
  const inConsole = (name: string, path: string, as: Signer, pagesIn = 0): Endpoint => ({
    name,
    door: 'console',
    path,
    as,
    pagesIn,
  });
  const weekAgo = new Date(Date.now() - 7 * 24 * 3600_000).toISOString();
  const twoWeeksAgo = new Date(Date.now() - 14 * 24 * 3600_000).toISOString();
  const dayAgo = new Date(Date.now() - 24 * 3600_000).toISOString();
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000).toISOString();
  return [
    admin('apps', '/apps'),
    admin('apps, page 2', '/apps', 1),
    admin('apps, page 101', '/apps', 100),
    admin('apps ?status=suspended', '/apps?status=suspended'),
    admin('apps ?email= (most apps)', `/apps?email=${q(s.mostApps.email)}`),
    admin('apps ?client_id=', `/apps?client_id=${s.popularApp.clientId}`),
    admin('apps ?name=Atl', '/apps?name=Atl'),
    admin('apps ?name=Zz (no match)', '/apps?name=Zz'),
    admin('apps ?since&until (a week)', `/apps?since=${q(twoWeeksAgo)}&until=${q(weekAgo)}`),
    admin('apps/{client_id} (most consents)', `/apps/${s.popularApp.clientId}`),
    admin('apps/{client_id}/consents', `/apps/${s.popularApp.clientId}/consents`),
    admin('apps/{client_id}/consents, page 2', `/apps/${s.popularApp.clientId}/consents`, 1),
    admin('apps/{client_id}/consents, page 21', `/apps/${s.popularApp.clientId}/consents`, 20),
    admin('apps/{client_id}/consents ?status=active', `/apps/${s.popularApp.clientId}/consents?status=active`),
    admin('accounts', '/accounts'),
    admin('accounts, page 2', '/accounts', 1),
    admin('accounts, page 101', '/accounts', 100),
    admin('accounts ?email=', `/accounts?email=${q(s.typical.email)}`),
    admin('accounts ?email_contains=hopper', '/accounts?email_contains=hopper'),
    admin('accounts ?email_contains=zz (no match)', '/accounts?email_contains=zz'),
    admin('accounts ?status=suspended', '/accounts?status=suspended'),
    admin('players', '/players'),
    admin('players, page 2', '/players', 1),
    admin('players, page 101', '/players', 100),
    admin('players, page 1001', '/players', 1000),
    admin('players ?username=', `/players?username=${s.busyPlayer.username}`),
    admin('players ?username_prefix=ada-12', '/players?username_prefix=ada-12'),
    admin('players ?username_prefix=zz (no match)', '/players?username_prefix=zz'),
    admin('players ?account= (most players)', `/players?account=${q(s.mostPlayers.email)}`),
    admin('players ?status=disabled', '/players?status=disabled'),
    admin('players/{username}/consents (most consents)', `/players/${s.busyPlayer.username}/consents`),
    admin('audit', '/audit'),
    admin('audit, page 2', '/audit', 1),
    admin('audit, page 101', '/audit', 100),
    admin('audit, page 1001', '/audit', 1000),
    admin('audit ?actor= (an account e-mail)', `/audit?actor=${q(s.historicApp.ownerEmail)}`),
    admin('audit ?actor=grace.ops', '/audit?actor=grace.ops'),
    admin('audit ?action=account.suspend', '/audit?action=account.suspend'),
    admin('audit ?action=secret.', '/audit?action=secret.'),
    admin('audit ?action=no.such (no match)', '/audit?action=no.such'),
    admin('audit ?target=app:{client_id}', `/audit?target=app:${s.historicApp.clientId}`),
    admin('audit ?target=consent', '/audit?target=consent'),
    admin('audit ?since&until (a day)', `/audit?since=${q(twoDaysAgo)}&until=${q(dayAgo)}`),
    inConsole(`apps (most apps: ${s.mostApps.apps})`, '/apps', 'mostApps'),
    inConsole(`apps (typical: ${s.typical.apps})`, '/apps', 'typical'),
    inConsole(`sandbox-players (most players: ${s.mostPlayers.players})`, '/sandbox-players', 'mostPlayers'),
    inConsole('sandbox-players, page 2 (most players)', '/sandbox-players', 'mostPlayers', 1),
    inConsole('sandbox-players, page 81 (most players)', '/sandbox-players', 'mostPlayers', 80),
    inConsole(`sandbox-players (typical: ${s.typical.players})`, '/sandbox-players', 'typical'),
    inConsole('apps/{client_id} (most consents)', `/apps/${s.popularApp.clientId}`, 'popularOwner'),
    inConsole('apps/{client_id}/deliveries', `/apps/${s.popularApp.clientId}/deliveries`, 'popularOwner'),
    inConsole(
      `apps/{client_id}/history (${s.historicApp.records} records)`,
      `/apps/${s.historicApp.clientId}/history`,
      'historicOwner',
    ),
    inConsole('apps/{client_id}/history, page 2', `/apps/${s.historicApp.clientId}/history`, 'historicOwner', 1),
  ];
}

/** The e-mail each console session signs in with. */
export function signers(s: Subjects): Record<Signer, string> {
  return {
    mostApps: s.mostApps.email,
    mostPlayers: s.mostPlayers.email,
    typical: s.typical.email,
    popularOwner: s.popularApp.ownerEmail,
    historicOwner: s.historicApp.ownerEmail,
  };
}
