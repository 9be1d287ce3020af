SET lock_timeout = '5s';
-- An active consent records no end: neither when nor why (consents_revocation_recorded already
-- requires both of a revoked one, but let an active one carry one of them). NOT VALID: rows
-- written from now on are checked, and a later release validates the table.
ALTER TABLE "consents" ADD CONSTRAINT "consents_active_records_no_end" CHECK ("status" = 'revoked' OR ("revoked_at" IS NULL AND "revocation_reason" IS NULL)) NOT VALID;
