CREATE INDEX CONCURRENTLY "audit_records_action_created_at_id_idx" ON "audit_records"("action", "created_at", "id");
