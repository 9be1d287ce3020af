import { findAccount } from '@devplat/domain/accounts';
import { appWithClientId, findApp, suspendApp, unsuspendApp } from '@devplat/domain/apps';
import { auditedCommand, type Command, type CommandText } from './command.ts';
import { adminConfig, withDatabase, withDirectory } from './connections.ts';

interface AppCommand extends CommandText {
  /** The apps room's change (suspendApp, unsuspendApp, audited there): true when it changed something. */
  change: typeof suspendApp;
  /** What the line says: the app after the change, and whether it changed. */
  outcome(status: string, changed: boolean): string;
}

function appCommand(spec: AppCommand): Command {
  return auditedCommand(spec, 'client_id', [], async ({ invocation: { args, env, io }, operator, reason }) => {
    const config = adminConfig(env);
    await withDatabase(config, async (prisma) => {
      const app = await appWithClientId(prisma, args.client_id as string);
      const changed = await withDirectory(config, prisma, io, (directory) =>
        spec.change(prisma, directory, { operator }, app.id, { reason }),
      );
      const [after, account] = await Promise.all([findApp(prisma, app.id), findAccount(prisma, app.accountId)]);
      const who = `app ${app.clientId} (${JSON.stringify(app.name)}, account ${account?.email ?? app.accountId})`;
      io.out(`${who}: ${spec.outcome(after?.status ?? app.status, changed)}\n`);
    });
  });
}

export const suspendAppCommand = appCommand({
  name: 'suspend-app',
  summary: 'Suspend an app: its tokens stop on the next call, until unsuspend-app',
  details: `Suspends the app with this client id, active or disabled. On the very next call every token of the
app is refused (401 INVALID_TOKEN on /cities and /me), and the token endpoint refuses it
(invalid_client): every process's app cache is told through Redis (REDIS_URL). Its consents stand,
paused, as a disabled app's do, and work again after unsuspend-app; its secrets are kept. Its
developer sees "Suspended by the platform" in the console and can neither enable, disable, edit
nor rotate it (409 APP_DISABLED), but may still delete it. To end its consents as well, run
end-app-consents after this. Writes an audit record (app.suspend, actor type operator) in the same
transaction. Suspending a suspended app changes nothing, records nothing, says "already suspended"
and exits 0. Exit 65 when no app has the client id, or it was deleted.`,
  change: suspendApp,
  outcome: (_status, changed) => (changed ? 'suspended' : 'already suspended, nothing changed'),
});

export const unsuspendAppCommand = appCommand({
  name: 'unsuspend-app',
  summary: 'Lift the suspension of an app',
  details: `Lifts the platform's suspension of the app with this client id: it returns to what its developer left
it, active (its unexpired tokens, and those of its consents, work again on the next call) or, if
they had disabled it, disabled. Writes an audit record (app.unsuspend, actor type operator, with
the status it returned to) in the same transaction. Unsuspending an app that is not suspended
changes nothing, records nothing, says "not suspended" and exits 0. Exit 65 when no app has the
client id, or it was deleted.`,
  change: unsuspendApp,
  outcome: (status, changed) => (changed ? `unsuspended, now ${status}` : `not suspended (${status}), nothing changed`),
});
