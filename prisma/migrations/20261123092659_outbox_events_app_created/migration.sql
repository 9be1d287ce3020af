-- CreateIndex
CREATE INDEX "outbox_events_app_id_created_at_idx" ON "outbox_events"("app_id", "created_at");
