import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import {
  applyMigrations,
  diffSchemaAgainstMigrations,
  schemaNote,
  schemaState,
  schemaVersionProblem,
} from '../src/index.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

const clientId = 'svc_abcdefghijklmnopqrstuvwxyz';

/** A refusal by the named CHECK constraint, and not any other error. */
const violates = (constraint: string) => (error: unknown) => {
  assert.match(String((error as Error).message), new RegExp(constraint));
  return true;
};

async function account(email: string) {
  return database.prisma.account.create({
    data: { email, passwordHash: 'x', displayName: 'Dev', kind: 'full' },
  });
}

describe('migrations', () => {
  test('prisma/migrations produce exactly prisma/schema.prisma', async () => {
    // The engine replays the migrations on a shadow database: a scratch PGlite serves.
    const scratch = new PGlite();
    try {
      assert.equal(await diffSchemaAgainstMigrations(new PrismaPGlite(scratch)), '');
    } finally {
      await scratch.close();
    }
  });

  test('applying them again changes nothing', async () => {
    assert.deepEqual(await applyMigrations(database.adapter), []);
  });

  test("the schema version check accepts this build's schema or a newer expand-only one, and says which way it is not", async () => {
    assert.equal(await schemaVersionProblem(database.query), null);
    const [last] = await database.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1',
      [],
    );
    const name = last?.migration_name as string;
    await database.query('UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = $1', [name]);
    assert.equal(
      await schemaVersionProblem(database.query),
      `older schema than this build: pending migrations ${name} (run db:migrate)`,
    );
    await database.query('UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE migration_name = $1', [name]);
    await database.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ('future', 'x', '29991231000000_from_a_newer_release', now(), now(), 1)`,
      [],
    );
    // A newer release's expand step: this build runs on it (a rolling release, or a rollback).
    assert.equal(await schemaVersionProblem(database.query), null);
    assert.deepEqual(await schemaState(database.query), {
      kind: 'newer-expand',
      unknown: ['29991231000000_from_a_newer_release'],
    });
    assert.equal(
      schemaNote(await schemaState(database.query)),
      'ok: newer schema, expand-only (29991231000000_from_a_newer_release)',
    );
    // A newer contract step removed or changed what this build may read: not this build's to run on.
    await database.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ('contract', 'x', '29991231000001_contract_drop_something', now(), now(), 1)`,
      [],
    );
    assert.equal(
      await schemaVersionProblem(database.query),
      'newer schema than this build, with a contract step: 29991231000001_contract_drop_something (roll forward to the release that ran it)',
    );
    await database.query("DELETE FROM _prisma_migrations WHERE id IN ('future', 'contract')", []);
    assert.equal(await schemaVersionProblem(database.query), null);
    assert.equal(schemaNote(await schemaState(database.query)), "ok: this build's schema");
  });
});

describe('plain SQL for the hot paths', () => {
  // Sequential calls reuse the pool's one idle connection, whose prepared statements the view lists.
  test('a statement is planned once per connection, not on every call', { skip: !realPostgresUrl }, async () => {
    const statement = 'SELECT count(*) AS n FROM unnest($1::text[]) AS t(client_id) JOIN apps a USING (client_id)';
    for (let call = 0; call < 8; call += 1) await database.query(statement, [[clientId]]);
    const plans = await database.query<{ generic_plans: string; custom_plans: string }>(
      'SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1',
      [statement],
    );
    assert.deepEqual(plans, [{ generic_plans: '8', custom_plans: '0' }]);
  });
});

describe('data model rules', () => {
  test('an app, its secret, a sandbox player, a consent, an outbox event, a delivery and an audit record', async () => {
    const developer = await account('model@example.test');
    const app = await database.prisma.app.create({
      data: { clientId, accountId: developer.id, name: 'App', scopes: ['city.public.read'], redirectUris: [] },
    });
    await database.prisma.clientSecret.create({ data: { appId: app.id, hash: 'h1' } });
    const player = await database.prisma.sandboxPlayer.create({
      data: { accountId: developer.id, username: 'player1', passwordHash: 'x', displayName: null },
    });
    const consent = await database.prisma.consent.create({
      data: { appId: app.id, playerId: player.id, scopes: ['profile.basic.read'], consentTextVersion: '2026-11' },
    });
    const event = await database.prisma.outboxEvent.create({
      data: { type: 'consent.granted', appId: app.id, payload: { consent: consent.id } },
    });
    await database.prisma.webhookDelivery.create({
      data: { eventId: event.id, appId: app.id, url: 'https://a.test/hook' },
    });
    await database.prisma.auditRecord.create({
      data: { actorType: 'account', actorId: developer.id, action: 'app.create', targetType: 'app', targetId: app.id },
    });
    const revoked = await database.prisma.consent.update({
      where: { id: consent.id },
      data: { status: 'revoked', revokedAt: new Date(), revocationReason: 'player_withdrawal' },
    });
    assert.equal(revoked.status, 'revoked');
  });

  test('a client id must match svc_ and 26 characters of [a-z2-7]', async () => {
    const developer = await account('ids@example.test');
    for (const bad of [
      'svc_short',
      'svc_ABCDEFGHIJKLMNOPQRSTUVWXYZ',
      'svc_abcdefghijklmnopqrstuvwxy1',
      'abc_abcdefghijklmnopqrstuvwxyz',
    ]) {
      await assert.rejects(
        database.prisma.app.create({
          data: { clientId: bad, accountId: developer.id, name: 'A', scopes: [], redirectUris: [] },
        }),
        bad,
      );
    }
  });

  test('an app holds at most five redirect URIs', async () => {
    const developer = await account('uris@example.test');
    const uris = (n: number) => Array.from({ length: n }, (_, i) => `https://app.test/cb${i}`);
    await database.prisma.app.create({
      data: {
        clientId: 'svc_aaaaaaaaaaaaaaaaaaaaaaaaa2',
        accountId: developer.id,
        name: 'A',
        scopes: [],
        redirectUris: uris(5),
      },
    });
    await assert.rejects(
      database.prisma.app.create({
        data: {
          clientId: 'svc_aaaaaaaaaaaaaaaaaaaaaaaaa3',
          accountId: developer.id,
          name: 'B',
          scopes: [],
          redirectUris: uris(6),
        },
      }),
      violates('apps_at_most_five_redirect_uris'),
    );
  });

  test('a revoked consent records when and why; an active one records neither', async () => {
    const { appId, playerId } = await database.prisma.consent.findFirstOrThrow();
    const consent = await database.prisma.consent.create({
      data: { appId, playerId, scopes: ['profile.basic.read'], consentTextVersion: '2026-11' },
    });
    const update = (data: Parameters<typeof database.prisma.consent.update>[0]['data']) =>
      database.prisma.consent.update({ where: { id: consent.id }, data });
    const refused = violates('consents_revocation_recorded');
    await assert.rejects(update({ status: 'revoked', revokedAt: null }), refused);
    await assert.rejects(update({ status: 'revoked', revokedAt: new Date() }), refused); // no reason
    const endless = violates('consents_active_records_no_end');
    await assert.rejects(update({ revokedAt: new Date() }), endless); // active, with a when
    await assert.rejects(update({ revocationReason: 'player_withdrawal' }), endless); // active, with a why
    const revoked = await update({ status: 'revoked', revokedAt: new Date(), revocationReason: 'player_withdrawal' });
    assert.equal(revoked.status, 'revoked');
    await assert.rejects(update({ revocationReason: null }), refused); // revoked, without its why
  });

  test('a country code is ISO 3166-1 alpha-2 in capitals', async () => {
    await assert.rejects(
      database.prisma.country.create({ data: { code: 'pt', name: 'x', region: 'Europe' } }),
      violates('countries_code_format'),
    );
  });
});
