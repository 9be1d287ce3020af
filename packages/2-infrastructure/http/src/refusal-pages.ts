// The page a site shows for a request refused before any route saw it (too large, not HTTP): the
// same page whichever door refused it, a service's listener (server.ts) or the gateway
// (infra/gateway/refusals.ts renders these into its configuration).
import { html } from './html.ts';
import { type Site, siteLayout } from './layout.ts';

/** The sites whose listeners answer pages, in their own layouts. */
export const pageSites = {
  playerClient: { width: '32rem' },
  console: { name: 'Developer console', width: '52rem' },
} satisfies Record<string, Site>;

export function refusalPageHtml(site: Site, title: string, message: string): string {
  return siteLayout(site)({ title, main: html`<h1>${title}</h1><p role="alert">${message}</p>` }).toString();
}
