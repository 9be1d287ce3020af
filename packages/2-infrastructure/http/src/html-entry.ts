// @devplat/http/html: the page template, layout and security headers without Koa, pino or the
// key-value store, for a page served by plain node:http (the CLI's loopback callback page).
export { Html, type HtmlValue, html } from './html.ts';
export { type PageContent, type Site, siteLayout } from './layout.ts';
export { pageHeaders } from './security-headers.ts';
