-- CreateIndex
CREATE INDEX "apps_created_at_id_idx" ON "apps"("created_at", "id");

-- CreateIndex
CREATE INDEX "apps_status_created_at_id_idx" ON "apps"("status", "created_at", "id");
