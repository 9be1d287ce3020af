// The platform ends consents (endConsentByOperator, endAppConsents, endPlayerConsents): each ended
// consent gets its consent.revoked event with reason operator_revocation, each transaction its one
// audit record, and a second run ends and records nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { createPlayer } from '@devplat/test/players';
import {
  endAppConsents,
  endConsentByOperator,
  endConsents,
  endPlayerConsents,
  grantConsent,
  pairwiseSubject,
} from '../src/consents/index.ts';
import { Refusal } from '../src/refusal.ts';

const pairwiseSecret = 'p'.repeat(32);
const operator = { operator: 'ops-carol' };

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

async function consentOf(app: TestApp, playerId: string) {
  return grantConsent(database.prisma, pairwiseSecret, {
    app: app.app,
    playerId,
    grantId: randomUUID(),
    scopes: ['profile.basic.read'],
  });
}

const consentRow = (id: string) => database.prisma.consent.findUniqueOrThrow({ where: { id } });

/** The consent.revoked events of an app, with what the test checks of them. */
async function revokedEvents(appId: string) {
  const events = await database.prisma.outboxEvent.findMany({
    where: { appId, type: 'consent.revoked' },
    orderBy: { createdAt: 'asc' },
  });
  return events.map((event) => event.payload as { consent_id: string; sub: string; reason: string; app: string });
}

const records = (action: string, targetId: string) =>
  database.prisma.auditRecord.findMany({ where: { action, targetId }, orderBy: { createdAt: 'asc' } });

describe('endConsentByOperator', () => {
  test('ends one consent with its event and one audit record; a second time ends and records nothing', async () => {
    const app = await createTestApp(database.prisma);
    const { player } = await createPlayer(database.prisma, app.developer.id);
    const consent = await consentOf(app, player.id);
    const other = await consentOf(app, player.id);

    const first = await endConsentByOperator(database.prisma, pairwiseSecret, operator, consent.id, {
      reason: 'abuse report',
    });
    assert.deepEqual(first, {
      ended: true,
      consent: {
        id: consent.id,
        clientId: app.clientId,
        playerId: player.id,
        status: 'revoked',
        revocationReason: 'operator_revocation',
      },
    });
    assert.equal((await consentRow(other.id)).status, 'active', 'only the consent named');
    const events = await revokedEvents(app.app.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.consent_id, consent.id);
    assert.equal(events[0]?.reason, 'operator_revocation');
    assert.equal(events[0]?.sub, pairwiseSubject(pairwiseSecret, app.clientId, player.id));
    const [record, ...more] = await records('consent.end', consent.id);
    assert.deepEqual(more, []);
    assert.equal(record?.actorType, 'operator');
    assert.equal(record?.actorId, 'ops-carol');
    assert.equal(record?.targetType, 'consent');
    assert.deepEqual(record?.details, { client_id: app.clientId, player_id: player.id, reason: 'abuse report' });

    const again = await endConsentByOperator(database.prisma, pairwiseSecret, operator, consent.id);
    assert.equal(again.ended, false);
    assert.equal(again.consent.revocationReason, 'operator_revocation');
    assert.equal((await revokedEvents(app.app.id)).length, 1);
    assert.equal((await records('consent.end', consent.id)).length, 1);
  });

  test('a consent ended otherwise keeps its reason; an unknown or malformed id is CONSENT_NOT_FOUND', async () => {
    const app = await createTestApp(database.prisma);
    const { player } = await createPlayer(database.prisma, app.developer.id);
    const consent = await consentOf(app, player.id);
    await database.prisma.$transaction((tx) =>
      endConsents(tx, pairwiseSecret, { consentId: consent.id }, 'player_withdrawal'),
    );
    const ended = await endConsentByOperator(database.prisma, pairwiseSecret, operator, consent.id);
    assert.equal(ended.ended, false);
    assert.equal(ended.consent.revocationReason, 'player_withdrawal');
    for (const id of [randomUUID(), 'not-a-consent']) {
      await assert.rejects(endConsentByOperator(database.prisma, pairwiseSecret, operator, id), (error) => {
        assert.ok(error instanceof Refusal);
        assert.equal(error.code, 'CONSENT_NOT_FOUND');
        return true;
      });
    }
  });
});

describe('endAppConsents', () => {
  test("ends every active consent of the app in bounded transactions, each with its record; others' stand", async () => {
    const app = await createTestApp(database.prisma);
    const neighbour = await createTestApp(database.prisma);
    const players = await Promise.all(Array.from({ length: 5 }, () => createPlayer(database.prisma, app.developer.id)));
    const consents = [];
    for (const { player } of players) consents.push(await consentOf(app, player.id));
    const elsewhere = await consentOf(neighbour, players[0]?.player.id as string);

    const result = await endAppConsents(
      database.prisma,
      pairwiseSecret,
      operator,
      app.app,
      { reason: 'spam' },
      {
        batchSize: 2,
      },
    );
    assert.deepEqual(result, { ended: 5, batches: 3 });
    for (const consent of consents) {
      const row = await consentRow(consent.id);
      assert.equal(row.status, 'revoked');
      assert.equal(row.revocationReason, 'operator_revocation');
    }
    assert.equal((await consentRow(elsewhere.id)).status, 'active');
    const events = await revokedEvents(app.app.id);
    assert.deepEqual(events.map((event) => event.consent_id).sort(), consents.map((consent) => consent.id).sort());
    assert.ok(events.every((event) => event.reason === 'operator_revocation' && event.app === app.clientId));

    const batches = await records('app.consents_end', app.app.id);
    assert.deepEqual(
      batches.map((record) => (record.details as { consents_ended: number }).consents_ended),
      [2, 2, 1],
    );
    const runs = new Set(batches.map((record) => (record.details as { run: string }).run));
    assert.equal(runs.size, 1, 'the records of one run share its id');
    for (const record of batches) {
      assert.equal(record.actorType, 'operator');
      assert.equal(record.targetType, 'app');
      assert.equal((record.details as { client_id: string }).client_id, app.clientId);
      assert.equal((record.details as { reason: string }).reason, 'spam');
    }

    const again = await endAppConsents(database.prisma, pairwiseSecret, operator, app.app);
    assert.deepEqual(again, { ended: 0, batches: 0 });
    assert.equal((await records('app.consents_end', app.app.id)).length, 3);
    assert.equal((await revokedEvents(app.app.id)).length, 5);
  });

  test('a second run ends what a first run left, such as a consent granted since', async () => {
    const app = await createTestApp(database.prisma);
    const { player } = await createPlayer(database.prisma, app.developer.id);
    await consentOf(app, player.id);
    assert.deepEqual(await endAppConsents(database.prisma, pairwiseSecret, operator, app.app), {
      ended: 1,
      batches: 1,
    });
    const later = await consentOf(app, player.id);
    assert.deepEqual(await endAppConsents(database.prisma, pairwiseSecret, operator, app.app), {
      ended: 1,
      batches: 1,
    });
    assert.equal((await consentRow(later.id)).status, 'revoked');
  });
});

describe('endPlayerConsents', () => {
  test("ends the player's consents with every app, each event under that app's pairwise subject", async () => {
    const first = await createTestApp(database.prisma);
    const second = await createTestApp(database.prisma);
    const { player, username } = await createPlayer(database.prisma, first.developer.id);
    const { player: bystander } = await createPlayer(database.prisma, first.developer.id);
    const withFirst = await consentOf(first, player.id);
    const withSecond = await consentOf(second, player.id);
    const untouched = await consentOf(first, bystander.id);

    const result = await endPlayerConsents(database.prisma, pairwiseSecret, operator, { id: player.id, username });
    assert.deepEqual(result, { ended: 2, batches: 1 });
    assert.equal((await consentRow(withFirst.id)).status, 'revoked');
    assert.equal((await consentRow(withSecond.id)).status, 'revoked');
    assert.equal((await consentRow(untouched.id)).status, 'active');
    for (const app of [first, second]) {
      const [event, ...more] = await revokedEvents(app.app.id);
      assert.deepEqual(more, []);
      assert.equal(event?.sub, pairwiseSubject(pairwiseSecret, app.clientId, player.id));
      assert.equal(event?.reason, 'operator_revocation');
    }
    // One record for each app (in that app's history), all of one run.
    const recorded = await records('player.consents_end', player.id);
    assert.deepEqual(
      recorded
        .map((record) => {
          const details = record.details as Record<string, unknown>;
          return [record.targetType, record.appId, details.username, details.client_id, details.consents_ended];
        })
        .toSorted((a, b) => String(a[1]).localeCompare(String(b[1]))),
      [
        ['sandbox_player', first.app.id, username, first.clientId, 1],
        ['sandbox_player', second.app.id, username, second.clientId, 1],
      ].toSorted((a, b) => String(a[1]).localeCompare(String(b[1]))),
    );
    assert.equal(new Set(recorded.map((record) => (record.details as { run: string }).run)).size, 1);

    assert.deepEqual(await endPlayerConsents(database.prisma, pairwiseSecret, operator, { id: player.id, username }), {
      ended: 0,
      batches: 0,
    });
    assert.equal((await records('player.consents_end', player.id)).length, 2, 'a second run records nothing');
  });
});
