CREATE INDEX CONCURRENTLY "accounts_created_at_id_idx" ON "accounts"("created_at", "id");
