-- AlterEnum
ALTER TYPE "AppStatus" ADD VALUE 'deleted';

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "RevocationReason" ADD VALUE 'app_deleted';
ALTER TYPE "RevocationReason" ADD VALUE 'scope_removed';

-- AlterTable
ALTER TABLE "apps" ADD COLUMN     "deleted_at" TIMESTAMPTZ(3);
