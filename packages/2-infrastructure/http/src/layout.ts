// The one layout and stylesheet of every site's pages (the player client, the console's web UI, the docs):
// plain HTML with labelled controls that works without scripts, from a 375 px phone to a desktop.
// What differs between sites is data (a Site): the console adds one script file of its own, which
// only adds conveniences (copy buttons, the live request log) to pages that work without it.
import { type Html, type HtmlValue, html, trustedHtml } from './html.ts';

export interface Site {
  /** Follows every page's title ("Apps · Developer console"); none when absent. */
  name?: string;
  /** The width of the page's column, as CSS. */
  width: string;
  /** A script file of the site's own, loaded deferred on every page (its CSP must allow 'self'). */
  script?: string;
}

export interface PageContent {
  title: string;
  /** Above the main content: a site's navigation. */
  header?: Html;
  main: HtmlValue;
}

// Narrow screens: the navigation wraps, a table or a code block too wide scrolls inside its own
// focusable region (scrollRegion, <pre tabindex="0">) rather than the page, and long words break.
const stylesheet = (width: string) =>
  `body{font-family:system-ui,sans-serif;max-width:${width};margin:2.5rem auto;padding:0 1rem;color:#1b1b1b;overflow-wrap:break-word}
nav{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.6rem}nav form{margin-left:auto}
nav form button{margin-top:0}
h1{font-size:1.45rem}h2{font-size:1.15rem;margin-top:2rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input:not([type=checkbox]):not([type=radio]),textarea,select{font-size:1rem;padding:.4rem;max-width:100%;box-sizing:border-box}
input:not([type=checkbox]):not([type=radio]),textarea{width:100%}
button{font-size:1rem;padding:.45rem 1.1rem;margin:.8rem .5rem 0 0}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.35rem;border-bottom:1px solid #eee;vertical-align:top}
code,.secret,.id{font-family:monospace;word-break:break-all}.error{color:#a00}
pre{background:#f5f5f5;padding:.8rem;overflow-x:auto;max-width:100%;box-sizing:border-box}pre code{word-break:normal}
.scroll{overflow-x:auto;max-width:100%}.scroll table td,.scroll table th{min-width:4rem}
:focus-visible{outline:2px solid #0645ad;outline-offset:2px}
.notice{background:#eef7ee;border-left:.3rem solid #2a7a2a;padding:.5rem 1rem}
.secret-box{background:#fff6d6;padding:.8rem;border:1px solid #e0c050}
.app{border:1px solid #ccc;border-radius:.4rem;padding:1rem;margin:1rem 0}.app h2{margin:0}
.inline{display:inline}small{color:#555}dt{font-weight:600;margin-top:.6rem}dd{margin-left:1rem}
button.link{background:none;border:none;padding:0;margin:0;color:#0645ad;text-decoration:underline;cursor:pointer}
button.copy{font-size:.85rem;padding:.2rem .6rem;margin:.3rem 0}[hidden]{display:none!important}
svg{max-width:100%;height:auto}summary{cursor:pointer}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){body{margin:1rem auto}nav form{margin-left:0}
.facts th,.facts td{display:block;border:none;padding:.15rem 0}.facts tr{display:block;border-bottom:1px solid #eee;padding:.3rem 0}}`;

/** The layout of one site: a whole page around a title, an optional header and the main content. */
export function siteLayout(site: Site): (page: PageContent) => Html {
  const style = trustedHtml(stylesheet(site.width));
  const script = site.script && html`<script src="${site.script}" defer></script>`;
  const suffix = site.name ? ` · ${site.name}` : '';
  return ({ title, header, main }) =>
    html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}${suffix}</title><style>${style}</style>${script}</head><body>${header}<main>${main}</main></body></html>`;
}

/**
 * Content wider than a phone (a table): it scrolls sideways inside a labelled region that a
 * keyboard can focus and scroll, never the whole page.
 */
export const scrollRegion = (label: string, content: HtmlValue, attributes?: Html): Html =>
  html`<div class="scroll" role="region" aria-label="${label}" tabindex="0" ${attributes}>${content}</div>`;

/** A confirmation of what was just done, read out politely. */
export const noticeMessage = (text: string | null | undefined): HtmlValue =>
  text ? html`<p class="notice" role="status">${text}</p>` : '';

/** Why a form was not accepted, read out at once. */
export const errorMessage = (text: string | null | undefined): HtmlValue =>
  text ? html`<p class="error" role="alert">${text}</p>` : '';

/** A form's hidden field (the CSRF token, the id a button acts on). */
export const hiddenField = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
