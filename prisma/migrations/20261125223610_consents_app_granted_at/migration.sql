-- CreateIndex
CREATE INDEX "consents_app_id_granted_at_id_idx" ON "consents"("app_id", "granted_at", "id");
