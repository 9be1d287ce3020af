-- AlterTable
ALTER TABLE "audit_records" ADD COLUMN     "app_id" UUID;

-- CreateIndex
CREATE INDEX "audit_records_app_id_created_at_id_idx" ON "audit_records"("app_id", "created_at", "id");

-- Backfill: the records written before this column name their app by its client id (unique, never
-- handed out again: a deleted app keeps its row), or, for a replay, by the replayed delivery. A
-- replay whose delivery the janitor has deleted since, and a player's consents ended across apps,
-- keep app_id null.
UPDATE "audit_records" AS r
SET "app_id" = a."id"
FROM "apps" AS a
WHERE r."app_id" IS NULL
  AND r."action" IN ('app.create', 'app.edit', 'app.disable', 'app.enable', 'app.delete', 'app.suspend',
                     'app.unsuspend', 'app.consents_end', 'secret.create', 'secret.revoke', 'webhook.test',
                     'consent.end')
  AND a."client_id" = r."details" ->> 'client_id';

UPDATE "audit_records" AS r
SET "app_id" = d."app_id"
FROM "webhook_deliveries" AS d
WHERE r."app_id" IS NULL
  AND r."action" = 'webhook.replay'
  AND r."target_type" = 'webhook_delivery'
  AND d."id"::text = r."target_id";
