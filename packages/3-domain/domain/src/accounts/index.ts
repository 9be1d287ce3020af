// The accounts room: what can be done to developer accounts (register, under the account's rules:
// rules.ts; a suspension, which reaches their apps, is a workflow) and what may be read of them.
// Only store.ts touches the accounts table.
export {
  authenticateDeveloper,
  type DeveloperAccounts,
  developerAccounts,
  type Registration,
  type Requester,
  registerDeveloper,
  usableAccount,
} from './developers.ts';
export { type NewAccount, registerAccount } from './operations.ts';
export { accountNamed, accountWithEmail } from './operators.ts';
export { type AccountMembers, checkedAccount, email, minimumPasswordLength } from './rules.ts';
export { type AccountSearch, searchAccounts } from './search.ts';
export {
  emailsOfAccounts,
  findAccount,
  findAccountByEmail,
  lockAccount,
} from './store.ts';
