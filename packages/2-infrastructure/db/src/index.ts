export { type Database, type DatabaseOptions, openDatabase, type PoolStats, type Query } from './connect.ts';
export { prepareEmbeddedDatabase } from './embedded.ts';
export type {
  Account,
  App,
  AuditRecord,
  City,
  ClientSecret,
  Consent,
  Country,
  OutboxEvent,
  RevokedToken,
  SandboxPlayer,
  WebhookDelivery,
} from './generated/client.ts';
export { Prisma, PrismaClient } from './generated/client.ts';
export * from './generated/enums.ts';
export { groupCommit, statementRoundTrips } from './group-commit.ts';
export { isUuid } from './ids.ts';
export { applyMigrations, diffSchemaAgainstMigrations, readMigrations } from './migrations.ts';
export { prismaDir } from './paths.ts';
export { type DatabaseCheck, databaseChecks } from './readiness.ts';
export {
  isContractStep,
  type SchemaState,
  schemaNote,
  schemaProblem,
  schemaState,
  schemaVersionProblem,
} from './schema-version.ts';
export { storableInstant, storableText, storableYears } from './storable.ts';
