// The accounts room: what can be done to developer accounts (register; a suspension, which reaches
// their apps, is a workflow) and what may be read of them. Only store.ts touches the accounts table.
export {
  authenticateDeveloper,
  type DeveloperAccounts,
  developerAccounts,
  email,
  minimumPasswordLength,
  type Registration,
  type Requester,
  registerDeveloper,
  usableAccount,
} from './developers.ts';
export { type NewAccount, registerAccount } from './operations.ts';
export { accountNamed, accountWithEmail } from './operators.ts';
export { type AccountSearch, searchAccounts } from './search.ts';
export {
  emailsOfAccounts,
  findAccount,
  findAccountByEmail,
  lockAccount,
} from './store.ts';
