-- CreateEnum
CREATE TYPE "AccountKind" AS ENUM ('guest', 'full');

-- CreateEnum
CREATE TYPE "AccountStatus" AS ENUM ('active', 'suspended');

-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('sandbox', 'staging', 'production');

-- CreateEnum
CREATE TYPE "AppStatus" AS ENUM ('active', 'disabled');

-- CreateEnum
CREATE TYPE "SecretStatus" AS ENUM ('active', 'revoked');

-- CreateEnum
CREATE TYPE "PlayerStatus" AS ENUM ('active', 'disabled');

-- CreateEnum
CREATE TYPE "ConsentStatus" AS ENUM ('active', 'revoked');

-- CreateEnum
CREATE TYPE "RevocationReason" AS ENUM ('player_withdrawal', 'token_revocation', 'code_replay', 'refresh_token_replay', 'superseded', 'app_disabled');

-- CreateEnum
CREATE TYPE "CityAvailability" AS ENUM ('closed', 'closed_beta', 'available');

-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "kind" "AccountKind" NOT NULL,
    "status" "AccountStatus" NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "suspended_at" TIMESTAMPTZ(3),

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "apps" (
    "id" UUID NOT NULL,
    "client_id" VARCHAR(30) NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "environment" "Environment" NOT NULL DEFAULT 'sandbox',
    "status" "AppStatus" NOT NULL DEFAULT 'active',
    "scopes" TEXT[],
    "redirect_uris" TEXT[],
    "webhook_url" TEXT,
    "webhook_signing_secret" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_at" TIMESTAMPTZ(3),

    CONSTRAINT "apps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "client_secrets" (
    "id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "status" "SecretStatus" NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "client_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sandbox_players" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "username" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "display_name" TEXT,
    "status" "PlayerStatus" NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sandbox_players_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "consents" (
    "id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "grant_id" TEXT,
    "scopes" TEXT[],
    "consent_text_version" TEXT NOT NULL,
    "status" "ConsentStatus" NOT NULL DEFAULT 'active',
    "granted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "revocation_reason" "RevocationReason",

    CONSTRAINT "consents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "countries" (
    "code" CHAR(2) NOT NULL,
    "name" TEXT NOT NULL,
    "region" TEXT NOT NULL,

    CONSTRAINT "countries_pkey" PRIMARY KEY ("code")
);

-- CreateTable
CREATE TABLE "cities" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "country_code" CHAR(2) NOT NULL,
    "availability" "CityAvailability" NOT NULL,
    "supported_capabilities" TEXT[],
    "reviewed" BOOLEAN NOT NULL DEFAULT false,
    "reviewed_at" TIMESTAMPTZ(3),

    CONSTRAINT "cities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "app_id" UUID NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "enqueued_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "replay_of" UUID,
    "is_test" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_records" (
    "id" UUID NOT NULL,
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_email_key" ON "accounts"("email");

-- CreateIndex
CREATE UNIQUE INDEX "apps_client_id_key" ON "apps"("client_id");

-- CreateIndex
CREATE INDEX "apps_account_id_idx" ON "apps"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "client_secrets_hash_key" ON "client_secrets"("hash");

-- CreateIndex
CREATE INDEX "client_secrets_app_id_status_idx" ON "client_secrets"("app_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "sandbox_players_username_key" ON "sandbox_players"("username");

-- CreateIndex
CREATE INDEX "sandbox_players_account_id_idx" ON "sandbox_players"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "consents_grant_id_key" ON "consents"("grant_id");

-- CreateIndex
CREATE INDEX "consents_app_id_player_id_status_idx" ON "consents"("app_id", "player_id", "status");

-- CreateIndex
CREATE INDEX "consents_player_id_status_idx" ON "consents"("player_id", "status");

-- CreateIndex
CREATE INDEX "cities_reviewed_country_code_idx" ON "cities"("reviewed", "country_code");

-- CreateIndex
CREATE INDEX "outbox_events_enqueued_at_created_at_idx" ON "outbox_events"("enqueued_at", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_app_id_status_idx" ON "webhook_deliveries"("app_id", "status");

-- CreateIndex
CREATE INDEX "audit_records_target_type_target_id_idx" ON "audit_records"("target_type", "target_id");

-- CreateIndex
CREATE INDEX "audit_records_actor_type_actor_id_idx" ON "audit_records"("actor_type", "actor_id");

-- AddForeignKey
ALTER TABLE "apps" ADD CONSTRAINT "apps_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_secrets" ADD CONSTRAINT "client_secrets_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sandbox_players" ADD CONSTRAINT "sandbox_players_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consents" ADD CONSTRAINT "consents_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consents" ADD CONSTRAINT "consents_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "sandbox_players"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cities" ADD CONSTRAINT "cities_country_code_fkey" FOREIGN KEY ("country_code") REFERENCES "countries"("code") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "outbox_events" ADD CONSTRAINT "outbox_events_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "outbox_events"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Rules the Prisma schema language cannot express, written by hand. Prisma's diff ignores CHECK
-- constraints. Keep semicolons out of comments: the pg driver adapter splits scripts on them.
ALTER TABLE "apps" ADD CONSTRAINT "apps_client_id_format" CHECK ("client_id" ~ '^svc_[a-z2-7]{26}$');
ALTER TABLE "apps" ADD CONSTRAINT "apps_at_most_five_redirect_uris" CHECK (cardinality("redirect_uris") <= 5);
ALTER TABLE "countries" ADD CONSTRAINT "countries_code_format" CHECK ("code" ~ '^[A-Z]{2}$');
ALTER TABLE "consents" ADD CONSTRAINT "consents_revocation_recorded" CHECK (("status" = 'revoked') = ("revoked_at" IS NOT NULL AND "revocation_reason" IS NOT NULL));
