-- AlterTable
ALTER TABLE "client_secrets" ADD COLUMN     "last_used_at" TIMESTAMPTZ(3);
