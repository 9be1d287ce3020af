// An operator's reason for a change, as its audit record keeps it: at most 1000 characters, no
// control character but tabs and line breaks, nothing PostgreSQL cannot store; blank is none. One
// rule for every door (the admin API, the admin command); each words its refusal.
import { storableText } from '@devplat/db';

export const maxReasonLength = 1_000;

export type ReasonFault = 'too long' | 'control character' | 'not storable';

/** The reason as recorded (trimmed; null when blank), or what is wrong with it. */
export function operatorReason(text: string): { reason: string | null } | { fault: ReasonFault } {
  if (text.length > maxReasonLength) return { fault: 'too long' };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return { fault: 'control character' };
  if (!storableText(text)) return { fault: 'not storable' };
  return { reason: text.trim() === '' ? null : text.trim() };
}
