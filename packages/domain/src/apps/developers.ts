// A developer's own apps, as the console serves them: every read and change is scoped to the
// signed-in account, and another developer's app (or a deleted one) answers exactly like one that
// does not exist.
import type { Db } from '../db.ts';
import { refuse } from '../refusal.ts';
import { refuseSuspended } from './operations.ts';
import { type AppWithSecrets, findAppByClientId } from './store.ts';

/** The account's app with this client id, unless deleted; APP_NOT_FOUND otherwise. */
export async function appOfDeveloper(db: Db, accountId: string, clientId: string): Promise<AppWithSecrets> {
  const app = await findAppByClientId(db, clientId);
  if (app && app.accountId === accountId && app.status !== 'deleted') return app;
  return refuse('APP_NOT_FOUND', `The app ${clientId} does not exist or is not yours.`);
}

/** The account's app, if it is active (APP_DISABLED, or APP_SUSPENDED by the platform, otherwise). */
export async function activeAppOfDeveloper(db: Db, accountId: string, clientId: string): Promise<AppWithSecrets> {
  const app = await appOfDeveloper(db, accountId, clientId);
  if (app.status === 'suspended') refuseSuspended(clientId);
  if (app.status !== 'active') refuse('APP_DISABLED', `The app ${clientId} is disabled.`);
  return app;
}

/** The id of one of the app's secrets; SECRET_NOT_FOUND for any other. */
export function secretOfApp(app: AppWithSecrets, secretId: string): string {
  const secret = app.secrets.find((candidate) => candidate.id === secretId);
  return secret ? secret.id : refuse('SECRET_NOT_FOUND', `The secret ${secretId} does not exist or is not yours.`);
}
