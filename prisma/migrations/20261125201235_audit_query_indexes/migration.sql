-- DropIndex
DROP INDEX "audit_records_actor_type_actor_id_idx";

-- DropIndex
DROP INDEX "audit_records_target_type_target_id_idx";

-- CreateIndex
CREATE INDEX "audit_records_created_at_id_idx" ON "audit_records"("created_at", "id");

-- CreateIndex
CREATE INDEX "audit_records_target_type_target_id_created_at_idx" ON "audit_records"("target_type", "target_id", "created_at");

-- CreateIndex
CREATE INDEX "audit_records_actor_type_actor_id_created_at_idx" ON "audit_records"("actor_type", "actor_id", "created_at");
