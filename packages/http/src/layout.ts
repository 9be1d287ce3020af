// The one layout and stylesheet of every site's pages (the player client, the console's web UI, the docs):
// plain HTML with labelled controls and no scripts. What differs between sites is data (a Site).
import { type Html, type HtmlValue, html, trustedHtml } from './html.ts';

export interface Site {
  /** Follows every page's title ("Apps · Developer console"); none when absent. */
  name?: string;
  /** The width of the page's column, as CSS. */
  width: string;
}

export interface PageContent {
  title: string;
  /** Above the main content: a site's navigation. */
  header?: Html;
  main: HtmlValue;
}

const stylesheet = (width: string) =>
  `body{font-family:system-ui,sans-serif;max-width:${width};margin:2.5rem auto;padding:0 1rem;color:#1b1b1b}
nav{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.6rem}nav form{margin-left:auto}
h1{font-size:1.45rem}h2{font-size:1.15rem;margin-top:2rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input:not([type=checkbox]),textarea{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
button{font-size:1rem;padding:.45rem 1.1rem;margin:.8rem .5rem 0 0}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.35rem;border-bottom:1px solid #eee;vertical-align:top}
code,.secret,.id{font-family:monospace;word-break:break-all}.error{color:#a00}
pre{background:#f5f5f5;padding:.8rem;overflow-x:auto}pre code{word-break:normal}
.notice{background:#eef7ee;border-left:.3rem solid #2a7a2a;padding:.5rem 1rem}
.secret-box{background:#fff6d6;padding:.8rem;border:1px solid #e0c050}
.app{border:1px solid #ccc;border-radius:.4rem;padding:1rem;margin:1rem 0}.app h2{margin:0}
.inline{display:inline}small{color:#555}dt{font-weight:600;margin-top:.6rem}dd{margin-left:1rem}
button.link{background:none;border:none;padding:0;margin:0;color:#0645ad;text-decoration:underline;cursor:pointer}`;

/** The layout of one site: a whole page around a title, an optional header and the main content. */
export function siteLayout(site: Site): (page: PageContent) => Html {
  const style = trustedHtml(stylesheet(site.width));
  const suffix = site.name ? ` · ${site.name}` : '';
  return ({ title, header, main }) =>
    html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${title}${suffix}</title><style>${style}</style></head><body>${header}<main>${main}</main></body></html>`;
}

/** A confirmation of what was just done, read out politely. */
export const noticeMessage = (text: string | null | undefined): HtmlValue =>
  text ? html`<p class="notice" role="status">${text}</p>` : '';

/** Why a form was not accepted, read out at once. */
export const errorMessage = (text: string | null | undefined): HtmlValue =>
  text ? html`<p class="error" role="alert">${text}</p>` : '';

/** A form's hidden field (the CSRF token, the id a button acts on). */
export const hiddenField = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
