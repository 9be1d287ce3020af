// The PostgreSQL side of a seeded platform, one INSERT … SELECT over generate_series per table:
// fixtures at scale, written straight to the tables as every fixture in test/support is (states no
// operation makes: a million consents at once, two years of history). Each statement answers how
// many rows it wrote.
import type { Query } from '@devplat/db';
import type { ScaleSizes } from './sizes.ts';
import { accountCreatedAt, accountShares, between, type Derivation } from './sql.ts';

export interface PostgresSeed {
  query: Query;
  d: Derivation;
  sizes: ScaleSizes;
  /** The one scrypt hash every account and player shares (hashed once: the password is in the summary). */
  passwordHash: string;
}

export interface Phase {
  name: string;
  run(seed: PostgresSeed): Promise<number>;
}

const counted = async (query: Query, text: string, values: unknown[] = []): Promise<number> =>
  Number((await query<{ n: number }>(text, values))[0]?.n ?? 0);

/** An element of a text array literal, picked by `unit`. */
const pick = (words: readonly string[], unit: string) =>
  `(ARRAY[${words.map((word) => `'${word}'`).join(', ')}])[1 + floor(${unit} * ${words.length})::int]`;

const firstNames = ['Ada', 'Grace', 'Alan', 'Linus', 'Margaret', 'Dennis', 'Barbara', 'Ken', 'Radia', 'Edsger'];
const lastNames = ['Lovelace', 'Hopper', 'Turing', 'Torvalds', 'Hamilton', 'Ritchie', 'Liskov', 'Thompson', 'Perlman'];
const domains = ['example.com', 'studio.example', 'games.example', 'mail.example'];
const appWords = [
  'Atlas',
  'Beacon',
  'Cobalt',
  'Drift',
  'Ember',
  'Fable',
  'Glade',
  'Harbor',
  'Iris',
  'Juniper',
  'Kestrel',
];
const appKinds = ['Maps', 'Tracker', 'Companion', 'Stats', 'Guild', 'Planner', 'Radar', 'Board', 'Hub', 'Journal'];

const accounts: Phase = {
  name: 'accounts',
  run: ({ query, d, sizes, passwordHash }) =>
    counted(
      query,
      `WITH ins AS (
        INSERT INTO accounts (id, email, password_hash, display_name, kind, status, created_at, suspended_at)
        SELECT ${d.uuid('account', 'k')},
          lower(${pick(firstNames, d.unit('acct_first', 'k'))} || '.' || ${pick(lastNames, d.unit('acct_last', 'k'))})
            || '.' || k || '@' || ${pick(domains, d.unit('acct_domain', 'k'))},
          $1, ${pick(firstNames, d.unit('acct_first', 'k'))} || ' ' || ${pick(lastNames, d.unit('acct_last', 'k'))},
          CASE WHEN k % 20 = 19 THEN 'guest' ELSE 'full' END::"AccountKind",
          CASE WHEN s < 0.01 THEN 'suspended' ELSE 'active' END::"AccountStatus",
          created_at, CASE WHEN s < 0.01 THEN ${between('created_at', d.now, d.unit('acct_susp_at', 'k'))} END
        FROM generate_series(0, ${sizes.accounts - 1}) AS k,
          LATERAL (SELECT ${d.unit('acct_susp', 'k')} AS s, ${accountCreatedAt(d, 'k', sizes.accounts)} AS created_at) x
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
      [passwordHash],
    ),
};

// 90% active, 5% disabled by their developer, 3% deleted, 2% suspended by an operator. Every app
// has a webhook signing secret (made with it); 30% have a webhook URL, 30% a second redirect URI.
const apps: Phase = {
  name: 'apps',
  run: ({ query, d, sizes }) =>
    counted(
      query,
      `WITH ${accountShares(d, sizes)}, ins AS (
        INSERT INTO apps (id, client_id, account_id, name, environment, status, scopes, redirect_uris, webhook_url,
          webhook_signing_secret, created_at, disabled_at, suspended_at, deleted_at)
        SELECT ${d.uuid('app', 'n')},
          'svc_' || substr(translate(md5('c' || ${d.hex('client', 'n')}) || md5('d' || ${d.hex('client', 'n')}),
            '0189', 'wxyz'), 1, 26),
          ${d.uuid('account', 'a.k')},
          ${pick(appWords, d.unit('app_word', 'n'))} || ' ' || ${pick(appKinds, d.unit('app_kind', 'n'))},
          'sandbox',
          (CASE WHEN s < 0.90 THEN 'active' WHEN s < 0.95 THEN 'disabled' WHEN s < 0.98 THEN 'deleted'
            ELSE 'suspended' END)::"AppStatus",
          CASE WHEN sc < 0.6 THEN ARRAY['city.public.read', 'profile.basic.read']
            WHEN sc < 0.85 THEN ARRAY['profile.basic.read'] ELSE ARRAY['city.public.read'] END,
          CASE WHEN ${d.unit('app_uris', 'n')} < 0.3
            THEN ARRAY['https://app-' || n || '.example.com/oauth/callback', 'http://127.0.0.1:8976/callback']
            ELSE ARRAY['https://app-' || n || '.example.com/oauth/callback'] END,
          CASE WHEN ${d.unit('app_hook', 'n')} < 0.3 THEN 'https://hooks.app-' || n || '.example.com/devplat' END,
          'whsec_' || substr(encode(sha256(convert_to(${d.hex('whsec', 'n')}, 'UTF8')), 'base64'), 1, 32),
          x.created_at,
          CASE WHEN s >= 0.90 AND s < 0.95 THEN changed_at END,
          CASE WHEN s >= 0.98 THEN changed_at END,
          CASE WHEN s >= 0.95 AND s < 0.98 THEN changed_at END
        FROM acct a, generate_series(a.app_start, a.app_end - 1) AS n,
          LATERAL (SELECT ${d.unit('app_status', 'n')} AS s, ${d.unit('app_scopes', 'n')} AS sc,
            ${between('a.created_at', d.now, d.unit('app_created', 'n'))} AS created_at) x,
          LATERAL (SELECT ${between('x.created_at', d.now, d.unit('app_changed', 'n'))} AS changed_at) y
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
    ),
};

// Every app's first secret; 20% rotated since (the first revoked, the second active), 5% in the
// middle of a rotation (both active). Most active secrets were used within the last day.
const secrets: Phase = {
  name: 'client_secrets',
  run: ({ query, d, sizes }) =>
    counted(
      query,
      `WITH ins AS (
        INSERT INTO client_secrets (id, app_id, hash, status, created_at, revoked_at, last_used_at)
        SELECT ${d.uuid('secret', "n || ':' || i")}, a.id, ${d.hex('secret', "n || ':' || i")},
          (CASE WHEN i = 0 AND r < 0.20 THEN 'revoked' ELSE 'active' END)::"SecretStatus",
          CASE WHEN i = 0 THEN a.created_at ELSE second_at END,
          CASE WHEN i = 0 AND r < 0.20 THEN second_at + interval '10 minutes' END,
          CASE WHEN a.status = 'active' AND NOT (i = 0 AND r < 0.20) AND ${d.unit('secret_used', 'n')} < 0.7
            THEN ${d.now} - interval '1 day' * ${d.unit('secret_used_at', "n || ':' || i")} END
        FROM generate_series(0, ${sizes.apps - 1}) AS n
          JOIN apps a ON a.id = ${d.uuid('app', 'n')},
          LATERAL (SELECT ${d.unit('secret_rotation', 'n')} AS r,
            ${between('a.created_at', `coalesce(a.deleted_at, ${d.now})`, d.unit('secret_second', 'n'))} AS second_at) x,
          generate_series(0, 1) AS i
        WHERE i = 0 OR r < 0.25
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
    ),
};

const players: Phase = {
  name: 'sandbox_players',
  run: ({ query, d, sizes, passwordHash }) =>
    counted(
      query,
      `WITH ${accountShares(d, sizes)}, ins AS (
        INSERT INTO sandbox_players (id, account_id, username, password_hash, display_name, status, created_at)
        SELECT ${d.uuid('player', 'n')}, ${d.uuid('account', 'a.k')},
          lower(${pick(firstNames, d.unit('player_name', 'n'))}) || '-' || n, $1,
          CASE WHEN ${d.unit('player_display', 'n')} < 0.8
            THEN ${pick(firstNames, d.unit('player_name', 'n'))} || ' ' || chr(65 + floor(${d.unit('player_initial', 'n')} * 26)::int) || '.'
          END,
          (CASE WHEN ${d.unit('player_status', 'n')} < 0.02 THEN 'disabled' ELSE 'active' END)::"PlayerStatus",
          ${between('a.created_at', d.now, d.unit('player_created', 'n'))}
        FROM acct a, generate_series(a.player_start, a.player_end - 1) AS n
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
      [passwordHash],
    ),
};

/**
 * Each account's consents come from its own players (developers test their own apps), 80% with
 * its own apps (the first ones most), 20% with the platform's popular apps; an account without
 * players or apps borrows anyone's. 10% are a player consenting again to an app they consented to
 * before (a second grant: nothing supersedes the first). 70% are active; the rest ended for the
 * reasons the platform records, and every consent of a deleted app ended with it.
 */
const consents: Phase = {
  name: 'consents',
  run: ({ query, d, sizes }) => {
    const pair = "k || ':' || p";
    return counted(
      query,
      `WITH ${accountShares(d, sizes)},
      picks AS (
        SELECT a.k, a.consent_start + j AS c, a.player_start, a.player_count, a.app_start, a.app_count,
          CASE WHEN j < ceil(0.9 * a.consent_count) THEN j
            ELSE floor(${d.unit('consent_again', 'a.consent_start + j')} * ceil(0.9 * a.consent_count))::bigint END AS p
        FROM acct a, generate_series(0, a.consent_count - 1) AS j
      ),
      pairs AS (
        SELECT c,
          CASE WHEN player_count > 0 THEN player_start + floor(${d.unit('consent_player', pair)} * player_count)::bigint
            ELSE floor(${d.unit('consent_any_player', pair)} * ${sizes.players})::bigint END AS player_n,
          CASE WHEN app_count > 0 AND ${d.unit('consent_own', pair)} < 0.8
            THEN app_start + floor(app_count * power(${d.unit('consent_app', pair)}, 2))::bigint
            ELSE floor(${sizes.apps} * power(${d.unit('consent_any_app', pair)}, 3))::bigint END AS app_n
        FROM picks
      ),
      ins AS (
        INSERT INTO consents (id, app_id, player_id, grant_id, scopes, consent_text_version, status, granted_at,
          revoked_at, revocation_reason)
        SELECT ${d.uuid('consent', 'c')}, app.id, player.id, ${d.token('grant', 'c')}, app.scopes, '2026-11-22',
          (CASE WHEN reason IS NULL THEN 'active' ELSE 'revoked' END)::"ConsentStatus", granted_at,
          CASE WHEN app.status = 'deleted' THEN app.deleted_at
            WHEN reason IS NOT NULL THEN ${between('granted_at', d.now, d.unit('consent_ended', 'c'))} END,
          reason::"RevocationReason"
        FROM pairs
          JOIN apps app ON app.id = ${d.uuid('app', 'app_n')}
          JOIN sandbox_players player ON player.id = ${d.uuid('player', 'player_n')},
          LATERAL (SELECT ${between('greatest(app.created_at, player.created_at)', `coalesce(app.deleted_at, ${d.now})`, d.unit('consent_granted', 'c'))} AS granted_at,
            ${d.unit('consent_status', 'c')} AS s) g,
          LATERAL (SELECT CASE WHEN app.status = 'deleted' THEN 'app_deleted' WHEN s < 0.70 THEN NULL
            WHEN s < 0.85 THEN 'player_withdrawal' WHEN s < 0.92 THEN 'token_revocation'
            WHEN s < 0.95 THEN 'refresh_token_replay' WHEN s < 0.96 THEN 'code_replay'
            WHEN s < 0.98 THEN 'scope_removed' ELSE 'operator_revocation' END AS reason) r
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
    );
  },
};

interface AuditAction {
  action: string;
  weight: number;
  /** Whose row it is about: its id is the target's (but for the kinds below) and its time the earliest. */
  subject: 'app' | 'player' | 'account';
  by: 'account' | 'operator';
  targetType: string;
  /** The target id when it is not the subject's: a SQL expression over n (the subject's number) and g. */
  targetId?: string;
  /** jsonb_build_object arguments over app, player, acct, g. */
  details: string;
  /** In the app's history (audit_records.app_id). */
  ofApp: boolean;
}

const reason = `'reason', 'ticket ' || (1000 + g % 9000)`;
const appDetails = `'client_id', app.client_id`;

/** What the console and the admin command record, in the proportions a live platform has them. */
function auditActions(d: Derivation): AuditAction[] {
  const app = { subject: 'app', ofApp: true } as const;
  const player = { subject: 'player', ofApp: false } as const;
  return [
    { ...player, action: 'player.create', weight: 38, by: 'account', targetType: 'sandbox_player', details: '' },
    { ...app, action: 'app.create', weight: 10, by: 'account', targetType: 'app', details: appDetails },
    {
      ...app,
      action: 'app.edit',
      weight: 12,
      by: 'account',
      targetType: 'app',
      details: `${appDetails}, 'changed', jsonb_build_object('name', jsonb_build_object('from', 'Old ' || app.name,
        'to', app.name)), 'consents_ended', 0`,
    },
    {
      ...app,
      action: 'secret.create',
      weight: 8,
      by: 'account',
      targetType: 'client_secret',
      targetId: `${d.uuid('secret', "n || ':1'")}::text`,
      details: appDetails,
    },
    {
      ...app,
      action: 'secret.revoke',
      weight: 5,
      by: 'account',
      targetType: 'client_secret',
      targetId: `${d.uuid('secret', "n || ':0'")}::text`,
      details: appDetails,
    },
    {
      ...app,
      action: 'webhook.test',
      weight: 8,
      by: 'account',
      targetType: 'outbox_event',
      targetId: `${d.uuid('audit_event', 'g')}::text`,
      details: `'delivery_id', ${d.uuid('audit_delivery', 'g')}`,
    },
    {
      ...app,
      action: 'webhook.replay',
      weight: 2,
      by: 'account',
      targetType: 'webhook_delivery',
      targetId: `${d.uuid('audit_delivery', 'g')}::text`,
      details: `'new_delivery_id', ${d.uuid('audit_replay', 'g')}`,
    },
    { ...app, action: 'app.disable', weight: 3, by: 'account', targetType: 'app', details: appDetails },
    { ...app, action: 'app.enable', weight: 2, by: 'account', targetType: 'app', details: appDetails },
    {
      ...app,
      action: 'app.delete',
      weight: 1,
      by: 'account',
      targetType: 'app',
      details: `${appDetails}, 'consents_ended', g % 20`,
    },
    {
      subject: 'account',
      ofApp: false,
      action: 'account.register',
      weight: 4,
      by: 'account',
      targetType: 'account',
      details: '',
    },
    {
      ...app,
      action: 'app.suspend',
      weight: 1,
      by: 'operator',
      targetType: 'app',
      details: `${appDetails}, ${reason}`,
    },
    {
      ...app,
      action: 'app.unsuspend',
      weight: 0.5,
      by: 'operator',
      targetType: 'app',
      details: `${appDetails}, 'status', 'active', ${reason}`,
    },
    {
      subject: 'account',
      ofApp: false,
      action: 'account.suspend',
      weight: 0.5,
      by: 'operator',
      targetType: 'account',
      details: `'email', acct.email, ${reason}`,
    },
    {
      ...player,
      action: 'player.disable',
      weight: 1,
      by: 'operator',
      targetType: 'sandbox_player',
      details: `'username', player.username, ${reason}`,
    },
    {
      ...app,
      action: 'consent.end',
      weight: 1,
      by: 'operator',
      targetType: 'consent',
      targetId: `${d.uuid('audit_consent', 'g')}::text`,
      details: `${appDetails}, 'player_id', ${d.uuid('audit_player', 'g')}, ${reason}`,
    },
    {
      ...app,
      action: 'app.consents_end',
      weight: 0.5,
      by: 'operator',
      targetType: 'app',
      details: `${appDetails}, 'consents_ended', g % 50, ${reason}`,
    },
    {
      ...player,
      action: 'player.consents_end',
      weight: 0.5,
      by: 'operator',
      targetType: 'sandbox_player',
      details: `'username', player.username, 'consents_ended', g % 5, ${reason}`,
    },
  ];
}

const operators = ['ada.ops', 'grace.ops', 'linus.ops'];

/**
 * Audit records in the mix a live platform keeps (player creation most), each about a row that
 * exists (busy apps have the longest histories), after that row was created.
 */
const audit: Phase = {
  name: 'audit_records',
  run: ({ query, d, sizes }) => {
    const populated = { app: sizes.apps > 0, player: sizes.players > 0, account: sizes.accounts > 0 };
    const actions = auditActions(d).filter((action) => populated[action.subject]);
    if (sizes.audit === 0 || actions.length === 0) return Promise.resolve(0);
    const total = actions.reduce((sum, action) => sum + action.weight, 0);
    let upTo = 0;
    const bucket = actions.map((action, index) => {
      upTo += action.weight;
      return `WHEN u < ${index === actions.length - 1 ? 2 : upTo / total} THEN ${index}`;
    });
    const column = (get: (action: AuditAction) => string) =>
      `CASE i ${actions.map((action, index) => `WHEN ${index} THEN ${get(action)}`).join(' ')} END`;
    const subjectId = { app: 'app.id::text', player: 'player.id::text', account: 'acct.id::text' };
    const subjectCreated = { app: 'app.created_at', player: 'player.created_at', account: 'acct.created_at' };
    const subjectAccount = { app: 'app.account_id::text', player: 'player.account_id::text', account: 'acct.id::text' };
    // Busy apps have the longest histories; players and accounts are picked evenly.
    const subjectNumber = {
      app: `floor(${sizes.apps} * power(${d.unit('audit_app', 'g')}, 2))`,
      player: `floor(${sizes.players} * ${d.unit('audit_player_n', 'g')})`,
      account: `floor(${sizes.accounts} * ${d.unit('audit_account', 'g')})`,
    };
    return counted(
      query,
      `WITH picks AS MATERIALIZED (
        SELECT g, i, ${column((action) => `'${action.subject}'`)} AS subject,
          (${column((action) => subjectNumber[action.subject])})::bigint AS n
        FROM generate_series(0, ${sizes.audit - 1}) AS g,
          LATERAL (SELECT ${d.unit('audit_action', 'g')} AS u) x,
          LATERAL (SELECT CASE ${bucket.join(' ')} END AS i) y
      ),
      ins AS (
        INSERT INTO audit_records (id, actor_type, actor_id, action, target_type, target_id, details, request_id,
          app_id, created_at)
        SELECT ${d.uuid('audit', 'g')},
          ${column((action) => `'${action.by}'`)},
          ${column((action) => (action.by === 'operator' ? pick(operators, d.unit('audit_operator', 'g')) : subjectAccount[action.subject]))},
          ${column((action) => `'${action.action}'`)},
          ${column((action) => `'${action.targetType}'`)},
          ${column((action) => action.targetId ?? subjectId[action.subject])},
          ${column((action) => `jsonb_build_object(${action.details})`)},
          ${column((action) => (action.by === 'account' ? `${d.uuid('audit_request', 'g')}::text` : 'NULL'))},
          ${column((action) => (action.ofApp ? 'app.id' : 'NULL::uuid'))},
          ${column((action) =>
            action.action === 'account.register'
              ? 'acct.created_at'
              : between(subjectCreated[action.subject], d.now, d.unit('audit_at', 'g')),
          )}
        FROM picks
          LEFT JOIN apps app ON picks.subject = 'app' AND app.id = ${d.uuid('app', 'n')}
          LEFT JOIN sandbox_players player ON picks.subject = 'player' AND player.id = ${d.uuid('player', 'n')}
          LEFT JOIN accounts acct ON picks.subject = 'account' AND acct.id = ${d.uuid('account', 'n')}
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
    );
  },
};

/** consent.granted of the latest consents, enqueued a second after; as the worker leaves them. */
const events: Phase = {
  name: 'outbox_events',
  run: ({ query, d, sizes }) =>
    counted(
      query,
      `WITH latest AS (
        SELECT c.*, a.client_id FROM consents c JOIN apps a ON a.id = c.app_id
        ORDER BY c.granted_at DESC LIMIT ${sizes.events}
      ),
      ins AS (
        INSERT INTO outbox_events (id, type, app_id, payload, created_at, enqueued_at)
        SELECT ${d.uuid('event', 'l.id::text')}, 'consent.granted', l.app_id,
          jsonb_build_object('app', l.client_id, 'sub', 'ps_' || left(${d.token('sub', "l.app_id || ':' || l.player_id")}, 32),
            'scopes', l.scopes, 'receipt_version', l.consent_text_version, 'consent_id', l.id,
            'granted_at', to_char(l.granted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
          l.granted_at, l.granted_at + interval '1 second'
        FROM latest l
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
    ),
};

/** One delivery of each event whose app has a webhook URL: 95% succeeded at once, 5% failed for good. */
const deliveries: Phase = {
  name: 'webhook_deliveries',
  run: ({ query, d }) =>
    counted(
      query,
      `WITH ins AS (
        INSERT INTO webhook_deliveries (id, event_id, app_id, url, status, attempts, next_attempt_at, last_status_code,
          last_error, created_at, delivered_at)
        SELECT ${d.uuid('delivery', 'e.id::text')}, e.id, e.app_id, a.webhook_url,
          (CASE WHEN ok THEN 'succeeded' ELSE 'failed' END)::"DeliveryStatus",
          CASE WHEN ok THEN 1 ELSE 8 END,
          e.created_at + CASE WHEN ok THEN interval '0' ELSE interval '1 day' END,
          CASE WHEN ok THEN 200 ELSE 503 END, CASE WHEN ok THEN NULL ELSE 'HTTP 503' END,
          e.enqueued_at, CASE WHEN ok THEN e.enqueued_at + interval '200 milliseconds' END
        FROM outbox_events e JOIN apps a ON a.id = e.app_id,
          LATERAL (SELECT ${d.unit('delivery_ok', 'e.id::text')} < 0.95 AS ok) x
        WHERE a.webhook_url IS NOT NULL
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
    ),
};

/** App access tokens revoked in the last five minutes, each kept until it would have expired. */
const revokedTokens: Phase = {
  name: 'revoked_tokens',
  run: ({ query, d, sizes }) =>
    counted(
      query,
      `WITH ins AS (
        INSERT INTO revoked_tokens (jti, expires_at, revoked_at)
        SELECT ${d.token('jti', 'g')}, ${d.now} + interval '300 seconds' * u, ${d.now} - interval '300 seconds' * (1 - u)
        FROM generate_series(0, ${sizes.revokedTokens - 1}) AS g,
          LATERAL (SELECT ${d.unit('jti_at', 'g')} AS u) x
        RETURNING 1)
      SELECT count(*)::int AS n FROM ins`,
    ),
};

/** In the order their foreign keys need. */
export const postgresPhases: readonly Phase[] = [
  accounts,
  apps,
  secrets,
  players,
  consents,
  audit,
  events,
  deliveries,
  revokedTokens,
];
