// npm run db:seed: loads the sample reviewed city registry into DATABASE_URL (or the embedded PGlite).
import { join } from 'node:path';
import { loadConfigOrExit, loadStoreSettings } from '@devplat/config';
import { openDatabase } from '@devplat/db';
import { seedRegistry } from '../src/registry/index.ts';

// The store settings alone, as db:migrate reads them: a seed needs no secret.
const config = loadConfigOrExit(process.env, loadStoreSettings);
const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: join(config.dataDir, 'pglite') });
try {
  const { countries, cities } = await seedRegistry(database.prisma);
  console.log(`seeded ${countries} countries and ${cities} cities`);
} catch (error) {
  console.error(`seed failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await database.close();
}
