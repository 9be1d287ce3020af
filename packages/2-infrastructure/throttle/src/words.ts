/** A lock's remaining time as a person reads it: "1 second", "45 seconds", "3 minutes". */
export function waitInWords(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
