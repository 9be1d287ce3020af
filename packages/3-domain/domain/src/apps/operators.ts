// Apps as an operator names them, by client id: the admin command and the admin API find them
// here, and are refused alike (APP_NOT_FOUND) when no app has that id.
import type { Db } from '../db.ts';
import { refuse } from '../refusal.ts';
import { type AppWithSecrets, findAppByClientId } from './store.ts';

/**
 * The app with this client id (in any case). A deleted app is refused too, as its developer
 * deleted it, unless `deleted: 'found'`: what was recorded of it (its consents, its audit) stays
 * readable.
 */
export async function appWithClientId(
  db: Db,
  clientId: string,
  { deleted = 'refused' }: { deleted?: 'refused' | 'found' } = {},
): Promise<AppWithSecrets> {
  const app = await findAppByClientId(db, clientId.toLowerCase());
  if (!app) return refuse('APP_NOT_FOUND', `no app has the client id ${clientId}`);
  if (app.status === 'deleted' && deleted === 'refused') {
    refuse('APP_NOT_FOUND', `the app ${clientId} was deleted by its developer`);
  }
  return app;
}
