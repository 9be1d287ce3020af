-- AlterEnum
ALTER TYPE "AppStatus" ADD VALUE 'suspended';

-- AlterEnum
ALTER TYPE "RevocationReason" ADD VALUE 'operator_revocation';

-- AlterTable
ALTER TABLE "apps" ADD COLUMN     "suspended_at" TIMESTAMPTZ(3);
