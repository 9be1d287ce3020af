// A sandbox player's rules, in the one place every creation reaches (createPlayer): its username (3
// to 32 characters: lower-case letters, digits and _ . -, not first; unique across the sandbox,
// which the store answers: USERNAME_TAKEN), its password (8 to 128 characters, checked before it is
// hashed: a player's may be shorter than an account's) and its display name (up to 64 characters of
// text, or none). A player is never edited, only disabled and enabled. Each refusal is the sentence
// every door shows.
import { optionalText, password, refuseInput, requiredText } from '../input.ts';

/** The shortest password a sandbox player takes. */
export const minimumPlayerPasswordLength = 8;

const maxDisplayNameLength = 64;

/** A username: what a sandbox player signs in with, unique across the sandbox. */
export function username(value: unknown): string {
  const text = requiredText(value, 'username', 32);
  if (!/^[a-z0-9][a-z0-9_.-]{2,31}$/.test(text)) {
    refuseInput('username must be 3 to 32 characters: lower-case letters, digits, and _ . - (not first).');
  }
  return text;
}

export interface PlayerMembers {
  username: string;
  /** As given, before it is hashed. */
  password: string;
  /** None (null) for an absent or empty one. */
  displayName: string | null;
}

/**
 * The members given, checked by the player's rules (the username and name as kept: trimmed, an
 * empty name none); refuses the first that breaks one.
 */
export function checkedPlayer<T extends PlayerMembers>(members: T): T {
  const name = username(members.username);
  password(members.password, minimumPlayerPasswordLength);
  const displayName = optionalText(members.displayName, 'display_name', maxDisplayNameLength);
  return { ...members, username: name, displayName };
}
