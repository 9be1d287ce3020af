// The accounts room: what can be done to developer accounts (register, suspend, reactivate) and
// what may be read of them. Only store.ts touches the accounts table.
export {
  authenticateDeveloper,
  minimumPasswordLength,
  type Registration,
  type Requester,
  registerDeveloper,
  usableAccount,
} from './developers.ts';
export { type NewAccount, reactivateAccount, registerAccount, suspendAccount } from './operations.ts';
export { type AccountSearch, searchAccounts } from './search.ts';
export {
  accountNamed,
  accountWithEmail,
  emailsOfAccounts,
  findAccount,
  findAccountByEmail,
  lockAccount,
} from './store.ts';
