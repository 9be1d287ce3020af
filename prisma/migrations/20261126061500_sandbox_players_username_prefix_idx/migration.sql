-- The operator's search by the beginning of a username (players/store.ts): a LIKE prefix is a range
-- on text_pattern_ops in any collation. An index on an expression, so Prisma's schema diff leaves it alone.
CREATE INDEX CONCURRENTLY "sandbox_players_username_prefix_idx" ON "sandbox_players"(lower("username") text_pattern_ops);
