CREATE INDEX CONCURRENTLY "sandbox_players_created_at_id_idx" ON "sandbox_players"("created_at", "id");
