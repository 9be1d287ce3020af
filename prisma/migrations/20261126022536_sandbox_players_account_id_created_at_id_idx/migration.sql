CREATE INDEX CONCURRENTLY "sandbox_players_account_id_created_at_id_idx" ON "sandbox_players"("account_id", "created_at", "id");
