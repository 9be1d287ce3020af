// A developer account's rules, in the one place every registration reaches (registerAccount): its
// e-mail address (an address of at most 254 characters, kept in lower case), its password (12 to
// 128 characters, checked before it is hashed) and its display name (1 to 64 characters of text).
// An account is registered, never edited (its status is the operator's: a workflow). Each refusal
// is the sentence every door shows.
import { password, refuseInput, requiredText } from '../input.ts';

/** The shortest password a developer account takes. */
export const minimumPasswordLength = 12;

const maxDisplayNameLength = 64;

/** An e-mail address, in lower case. */
export function email(value: unknown): string {
  const text = requiredText(value, 'email', 254).toLowerCase();
  if (!/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(text)) refuseInput('email must be an e-mail address.');
  return text;
}

export interface AccountMembers {
  email: string;
  /** As given, before it is hashed; a registration that brings a hash instead has none to check. */
  password?: string;
  displayName: string;
}

/**
 * The members given, checked by the account's rules (the address as kept: trimmed, in lower case;
 * the name trimmed); refuses the first that breaks one.
 */
export function checkedAccount<T extends AccountMembers>(members: T): T {
  const address = email(members.email);
  if ('password' in members) password(members.password, minimumPasswordLength);
  const displayName = requiredText(members.displayName, 'display_name', maxDisplayNameLength);
  return { ...members, email: address, displayName };
}
