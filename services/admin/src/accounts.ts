// admin suspend-account / reactivate-account: a developer account's apps stop working, or work
// again. The accounts room (@devplat/domain/accounts) makes the change, bumps every process's app
// directory before and after it, and writes the audit record in the same transaction, only when
// something changed, so a second run changes nothing and records nothing.
import { accountWithEmail } from '@devplat/domain/accounts';
import { appCountOfAccount } from '@devplat/domain/apps';
import { reactivateAccount, suspendAccount } from '@devplat/domain/workflows';
import { auditedCommand, type Command, type CommandText } from './command.ts';
import { adminConfig, withDatabase, withDirectory } from './connections.ts';

interface AccountCommand extends CommandText {
  /** The accounts room's change (suspendAccount, reactivateAccount, audited there): true when it changed something. */
  change: typeof suspendAccount;
  done: string;
  unchanged: string;
}

function accountCommand(spec: AccountCommand): Command {
  return auditedCommand(spec, 'email', [], async ({ invocation: { args, env, io }, operator, reason }) => {
    const config = adminConfig(env);
    await withDatabase(config, async (prisma) => {
      const account = await accountWithEmail(prisma, args.email as string);
      const apps = await appCountOfAccount(prisma, account.id);
      const changed = await withDirectory(config, prisma, io, (directory) =>
        spec.change(prisma, directory, { operator }, account, { reason }),
      );
      const who = `account ${account.email} (${account.id}, ${apps} app${apps === 1 ? '' : 's'})`;
      io.out(`${who}: ${changed ? spec.done : spec.unchanged}\n`);
    });
  });
}

export const suspendAccountCommand = accountCommand({
  name: 'suspend-account',
  summary: "Suspend a developer account: its apps' tokens stop working on the next call",
  details: `Suspends the developer account with this e-mail. On the very next call every token of its apps
is refused (401 INVALID_TOKEN on /cities and /me), and the token endpoint refuses its apps
(invalid_client): every process's app cache is told through Redis (REDIS_URL). Its apps, consents
and secrets are kept: reactivate-account undoes it. Writes an audit record (account.suspend, actor
type operator) in the same transaction. Suspending a suspended account changes nothing, records
nothing, says "already suspended" and exits 0. Exit 65 when no account has the e-mail.`,
  change: suspendAccount,
  done: 'suspended',
  unchanged: 'already suspended, nothing changed',
});

export const reactivateAccountCommand = accountCommand({
  name: 'reactivate-account',
  summary: 'Reactivate a suspended developer account',
  details: `Reactivates the suspended developer account with this e-mail: its apps work again on the next
call (those not disabled on their own), and so do their unexpired tokens. Writes an audit record
(account.reactivate, actor type operator) in the same transaction. Reactivating an active account
changes nothing, records nothing, says "already active" and exits 0. Exit 65 when no account has
the e-mail.`,
  change: reactivateAccount,
  done: 'reactivated',
  unchanged: 'already active, nothing changed',
});
