// The expand/contract migration policy (scripts/migration-policy.ts) and its CI check
// (scripts/check-migrations.ts): prisma/migrations passes; every kind of change the previous
// release cannot run beside fails unless the migration is a contract step, marked on both sides;
// comments and strings never pass for SQL; and what the migrate path cannot apply (a statement
// beside CREATE INDEX CONCURRENTLY, a `;` inside a comment, no lock_timeout) fails.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkMigrations,
  grandfatheredMigrations,
  type MigrationSource,
  type PolicyRule,
  splitStatements,
} from '../scripts/migration-policy.ts';
import { prismaDir } from '../src/paths.ts';

const cli = fileURLToPath(new URL('../scripts/check-migrations.ts', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'migration-policy-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let dirs = 0;
/** A migrations directory holding `migrations` (name → migration.sql). */
function migrationsDir(migrations: Record<string, string>): string {
  const dir = join(scratch, `migrations-${++dirs}`);
  for (const [name, sql] of Object.entries(migrations)) {
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(join(dir, name, 'migration.sql'), sql);
  }
  writeFileSync(join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
  return dir;
}

function read(dir: string): MigrationSource[] {
  const names = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return names.map(({ name }) => {
    const file = join(dir, name, 'migration.sql');
    return { name, sql: existsSync(file) ? readFileSync(file, 'utf8') : null };
  });
}

/** The rules a migration directory breaks, one per finding. */
function rulesOf(migrations: Record<string, string>): PolicyRule[] {
  return checkMigrations(read(migrationsDir(migrations))).findings.map((finding) => finding.rule);
}

const expand = '20261201080000_expand';
const contract = '20261201090000_contract_step';
const lock = "SET lock_timeout = '5s';\n";
const mark = '-- contract: safe after release 41\n';

describe('the migrations in prisma/migrations', () => {
  test('pass: every one is grandfathered by name, and no other is there', () => {
    const report = checkMigrations(read(join(prismaDir, 'migrations')));
    assert.deepEqual(report.findings, []);
    assert.equal(report.grandfathered, grandfatheredMigrations.length);
  });
});

describe('an expand step', () => {
  test('a destructive ALTER TABLE "apps" DROP COLUMN "name" fails unmarked and passes as a marked contract step', () => {
    const sql = `${lock}ALTER TABLE "apps" DROP COLUMN "name";\n`;
    const [finding, ...more] = checkMigrations(read(migrationsDir({ [expand]: sql }))).findings;
    assert.deepEqual(more, []);
    assert.equal(finding?.rule, 'drop');
    assert.equal(finding?.statement, 'ALTER TABLE "apps" DROP COLUMN "name"');
    assert.match(finding?.detail ?? '', /^DROP COLUMN apps\.name: a contract step; mark it `_contract_`/);
    assert.deepEqual(rulesOf({ [contract]: `${mark}${sql}` }), []);
  });

  const forbidden: [PolicyRule, string][] = [
    ['drop', 'DROP TABLE "apps";'],
    ['drop', 'DROP INDEX "apps_account_id_idx";'],
    ['drop', 'DROP TYPE "AppStatus";'],
    ['drop', 'ALTER TABLE "apps" DROP CONSTRAINT "apps_client_id_format";'],
    ['drop', 'ALTER TABLE "apps" ALTER COLUMN "status" DROP DEFAULT;'],
    ['drop', 'TRUNCATE "revoked_tokens";'],
    ['rename', 'ALTER TABLE "apps" RENAME TO "applications";'],
    ['rename', 'ALTER TABLE "apps" RENAME COLUMN "name" TO "title";'],
    ['rename', 'ALTER TABLE "apps" RENAME CONSTRAINT "apps_pkey" TO "apps_primary";'],
    ['rename', 'ALTER INDEX "apps_account_id_idx" RENAME TO "apps_owner_idx";'],
    ['rename', "ALTER TYPE \"AppStatus\" RENAME VALUE 'disabled' TO 'paused';"],
    ['column-type', 'ALTER TABLE "apps" ALTER COLUMN "name" TYPE VARCHAR(80);'],
    ['column-type', 'ALTER TABLE apps ALTER name SET DATA TYPE text;'],
    ['add-column-not-null', 'ALTER TABLE "apps" ADD COLUMN "tier" TEXT NOT NULL;'],
    ['set-not-null', 'ALTER TABLE "apps" ALTER COLUMN "webhook_url" SET NOT NULL;'],
    ['index-not-concurrent', 'CREATE INDEX "apps_name_idx" ON "apps"("name");'],
    ['index-not-concurrent', 'CREATE UNIQUE INDEX "apps_name_key" ON public.apps USING btree (name);'],
    ['constraint-not-valid', 'ALTER TABLE "apps" ADD CONSTRAINT "apps_name_short" CHECK (length("name") < 80);'],
    [
      'constraint-not-valid',
      'ALTER TABLE "consents" ADD CONSTRAINT "consents_app_fk" FOREIGN KEY ("app_id") REFERENCES "apps"("id");',
    ],
    ['constraint-not-valid', 'ALTER TABLE "apps" ADD CONSTRAINT "apps_name_key" UNIQUE ("name");'],
  ];
  for (const [rule, statement] of forbidden) {
    test(`${rule}: ${statement} fails unmarked and passes marked`, () => {
      assert.deepEqual(rulesOf({ [expand]: `${lock}${statement}\n` }), [rule]);
      assert.deepEqual(rulesOf({ [contract]: `${mark}${lock}${statement}\n` }), []);
    });
  }

  const allowed = [
    'ALTER TABLE "apps" ADD COLUMN "description" TEXT;',
    'ALTER TABLE "apps" ADD COLUMN "tier" TEXT NOT NULL DEFAULT \'free\';',
    'ALTER TABLE "apps" ADD COLUMN IF NOT EXISTS "note" TEXT;',
    'ALTER TABLE "apps" ALTER COLUMN "webhook_url" DROP NOT NULL, ALTER COLUMN "name" SET DEFAULT \'\';',
    'ALTER TYPE "AppStatus" ADD VALUE \'archived\';',
    'ALTER TABLE "apps" ADD CONSTRAINT "apps_name_short" CHECK (length("name") < 80) NOT VALID;',
    'ALTER TABLE "apps" VALIDATE CONSTRAINT "apps_name_short";',
    'ALTER TABLE "apps" ADD CONSTRAINT "apps_name_key" UNIQUE USING INDEX "apps_name_key";',
    'UPDATE "apps" SET "name" = trim("name") WHERE "name" <> trim("name");',
  ];
  for (const statement of allowed) {
    test(`passes: ${statement}`, () => {
      assert.deepEqual(rulesOf({ [expand]: `${lock}${statement}\n` }), []);
    });
  }

  test('a table created in the same migration takes indexes, NOT NULL columns and constraints at once', () => {
    const sql = `${lock}CREATE TABLE "app_notes" ("id" UUID NOT NULL, "app_id" UUID NOT NULL, "body" TEXT);
ALTER TABLE "app_notes" ADD COLUMN "kind" TEXT NOT NULL;
CREATE INDEX "app_notes_app_id_idx" ON "app_notes"("app_id");
CREATE UNIQUE INDEX "app_notes_body_key" ON "app_notes"("body");
ALTER TABLE "app_notes" ADD CONSTRAINT "app_notes_pkey" PRIMARY KEY ("id");
ALTER TABLE "app_notes" ADD CONSTRAINT "app_notes_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id");
`;
    assert.deepEqual(rulesOf({ [expand]: sql }), []);
  });

  test('an index on a table created only later in the migration still counts as on an existing table', () => {
    const sql = `${lock}CREATE INDEX "notes_idx" ON "notes"("id");\nCREATE TABLE "notes" ("id" UUID);\n`;
    assert.deepEqual(rulesOf({ [expand]: sql }), ['index-not-concurrent']);
  });
});

describe('comments and strings', () => {
  test('never pass for SQL', () => {
    const sql = `${lock}-- DROP TABLE "apps" once nothing reads it, RENAME later
/* ALTER TABLE "apps" DROP COLUMN "name"
   /* nested: ALTER COLUMN "name" TYPE TEXT */ CREATE INDEX "x" ON "apps"("name") */
ALTER TABLE "apps" ADD COLUMN "note" TEXT DEFAULT 'DROP TABLE apps, ALTER COLUMN name TYPE int';
COMMENT ON COLUMN "apps"."note" IS E'drop it later, it''s temporary \\' SET NOT NULL';
INSERT INTO "countries" ("code", "name", "region") VALUES ('ZZ', $$DROP INDEX "x"$$, $tag$ TRUNCATE apps $tag$);
`;
    assert.deepEqual(rulesOf({ [expand]: sql }), []);
  });

  test('statements split on `;` outside strings, comments and dollar quotes', () => {
    const { statements, hiddenSemicolons } = splitStatements(
      "SET lock_timeout = '5s'; -- a;b\nSELECT 'x;y', $$p;q$$; /* c;d */ SELECT \"e;f\"",
    );
    assert.deepEqual(
      statements.map((statement) => statement.text),
      ["SET lock_timeout = '5s'", "SELECT 'x;y', $$p;q$$", 'SELECT "e;f"'],
    );
    assert.deepEqual(
      hiddenSemicolons.map((token) => token.text),
      ['-- a;b', "'x;y'", '$$p;q$$', '/* c;d */', '"e;f"'],
    );
  });

  test('a `;` inside a comment or a string fails: the pg driver adapter splits migrations on every `;`', () => {
    assert.deepEqual(
      rulesOf({ [expand]: `${lock}-- adds a column; nothing else\nALTER TABLE "apps" ADD "x" TEXT;\n` }),
      ['semicolon'],
    );
    assert.deepEqual(rulesOf({ [expand]: `${lock}COMMENT ON TABLE "apps" IS 'apps; and more';\n` }), ['semicolon']);
  });
});

describe('the contract mark', () => {
  const drop = `${lock}ALTER TABLE "apps" DROP COLUMN "name";\n`;

  test('on the name only fails, and the step is checked as an expand step', () => {
    assert.deepEqual(rulesOf({ [contract]: drop }), ['contract-mark', 'drop']);
  });

  test('on the first line only fails', () => {
    assert.deepEqual(rulesOf({ [expand]: `${mark}${drop}` }), ['contract-mark', 'drop']);
  });

  test('naming no release fails', () => {
    assert.deepEqual(rulesOf({ [contract]: `-- contract: safe after release \n${drop}` }), ['contract-mark', 'drop']);
  });

  test('anywhere but the first line does not count', () => {
    assert.deepEqual(rulesOf({ [contract]: `${lock}${mark}ALTER TABLE "apps" DROP COLUMN "name";\n` }), [
      'contract-mark',
      'drop',
    ]);
  });

  test('`_contract_` counts only right after the timestamp', () => {
    assert.deepEqual(rulesOf({ '20261201090000_drop_contract_x': `${mark}${drop}` }), ['contract-mark', 'drop']);
  });
});

describe('applying a new migration', () => {
  test('without SET lock_timeout before its first DDL statement fails', () => {
    assert.deepEqual(rulesOf({ [expand]: 'ALTER TABLE "apps" ADD COLUMN "note" TEXT;\n' }), ['lock-timeout']);
    assert.deepEqual(rulesOf({ [expand]: `ALTER TABLE "apps" ADD COLUMN "note" TEXT;\n${lock}` }), ['lock-timeout']);
    assert.deepEqual(rulesOf({ [expand]: "SET LOCAL lock_timeout = '5s';\nALTER TABLE apps ADD note text;\n" }), [
      'lock-timeout',
    ]);
    assert.deepEqual(rulesOf({ [expand]: 'SET lock_timeout = 0;\nALTER TABLE apps ADD note text;\n' }), [
      'lock-timeout',
    ]);
    assert.deepEqual(rulesOf({ [expand]: 'SET lock_timeout TO 5000;\nALTER TABLE apps ADD note text;\n' }), []);
  });

  test('a contract step needs the lock timeout too', () => {
    assert.deepEqual(rulesOf({ [contract]: `${mark}ALTER TABLE "apps" DROP COLUMN "name";\n` }), ['lock-timeout']);
  });

  test('CREATE INDEX CONCURRENTLY passes as its migration only statement, with no lock timeout', () => {
    const sql = '-- CreateIndex\nCREATE INDEX CONCURRENTLY "apps_name_idx" ON "apps"("name");\n';
    assert.deepEqual(rulesOf({ [expand]: sql }), []);
    const drop = `${mark}DROP INDEX CONCURRENTLY IF EXISTS "apps_name_idx";\n`;
    assert.deepEqual(rulesOf({ [contract]: drop }), []);
  });

  test('CREATE INDEX CONCURRENTLY beside any other statement fails, SET lock_timeout included', () => {
    const sql = `${lock}CREATE INDEX CONCURRENTLY "apps_name_idx" ON "apps"("name");\n`;
    assert.deepEqual(rulesOf({ [expand]: sql }), ['concurrently-alone']);
  });

  test('a grandfathered migration is skipped by name', () => {
    const dir = migrationsDir({ '20261122025657_init': 'DROP TABLE "apps";\n', [expand]: `${lock}SELECT 1;\n` });
    const report = checkMigrations(read(dir));
    assert.deepEqual(report, { checked: 1, grandfathered: 1, findings: [] });
  });
});

describe('check-migrations (the CI command)', () => {
  function run(dir?: string) {
    return spawnSync(process.execPath, dir ? [cli, dir] : [cli], { encoding: 'utf8' });
  }

  test('passes prisma/migrations', () => {
    const { status, stdout } = run();
    assert.equal(status, 0, stdout);
    const all = readdirSync(join(prismaDir, 'migrations'), { withFileTypes: true }).filter((entry) =>
      entry.isDirectory(),
    ).length;
    const checked = all - grandfatheredMigrations.length;
    assert.equal(
      stdout,
      `${checked} migrations checked, ${grandfatheredMigrations.length} grandfathered, 0 findings\n`,
    );
  });

  test('fails a directory with a destructive expand step, one line per finding', () => {
    const dir = migrationsDir({
      [expand]: `${lock}ALTER TABLE "apps" DROP COLUMN "name";\n`,
      '20261201081000_fine': `${lock}ALTER TABLE "apps" ADD COLUMN "note" TEXT;\n`,
    });
    const { status, stdout } = run(dir);
    assert.equal(status, 1, stdout);
    assert.deepEqual(stdout.trimEnd().split('\n'), [
      `${expand}: drop: DROP COLUMN apps.name: a contract step; mark it \`_contract_\` and \`-- contract: safe after release <N>\`, or keep the column until the release after next  [ALTER TABLE "apps" DROP COLUMN "name"]`,
      '2 migrations checked, 0 grandfathered, 1 finding',
    ]);
  });
});
