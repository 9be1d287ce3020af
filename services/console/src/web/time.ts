// Times as the console's pages show them: "25 Nov 2026, 16:09 UTC" to read, the exact ISO instant
// in the <time> element's datetime and in its title (shown on hover). Rendered on the server, the
// same for every reader: the pages run no script to make it local or relative.
import { type Html, html } from '@devplat/http';

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const twoDigits = (value: number) => String(value).padStart(2, '0');

/** "25 Nov 2026, 16:09 UTC": the day and the minute, in UTC. */
export function readableTime(at: Date): string {
  const day = `${at.getUTCDate()} ${months[at.getUTCMonth()]} ${at.getUTCFullYear()}`;
  return `${day}, ${twoDigits(at.getUTCHours())}:${twoDigits(at.getUTCMinutes())} UTC`;
}

/** An ISO time as a <time> element: readable text, the exact instant on hover. */
export const timeElement = (iso: string): Html =>
  html`<time datetime="${iso}" title="${iso}">${readableTime(new Date(iso))}</time>`;
