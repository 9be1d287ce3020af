// Makes the test databases' templates on DATABASE_URL's server before the test files start
// (test/support/database-template.ts), so that none of them waits for it or pays for it.
import { ensureTemplates } from '@devplat/test/database-template';

const serverUrl = process.env.DATABASE_URL?.trim();
if (serverUrl) await ensureTemplates(serverUrl);
// The WASM schema engine leaves a timer running (as db:migrate says).
process.exit(0);
