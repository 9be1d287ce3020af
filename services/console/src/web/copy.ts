// The console's copy buttons: one beside each value a developer pastes elsewhere (a client id, a
// secret shown once, a snippet). Hidden in the HTML and shown by /assets/console.js (assets.ts),
// which copies the text of the element the button names: without scripts there is no button, and
// the value is still there to select by hand.
import { type Html, html } from '@devplat/http';

/** A Copy button for the element whose id is `target`; `what` completes its name ("Copy client ID"). */
export const copyButton = (target: string, what: string): Html =>
  html`<button type="button" class="copy" data-copy="${target}" aria-label="Copy ${what}" hidden>Copy</button>`;
