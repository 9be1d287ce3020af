// The one HTML template of every page: a tagged template that escapes each interpolated value, so
// escaping is the default and never a call to remember. Only a template's own result (or markup
// marked trusted by the code, never by input) is inserted as it is.

/** Markup made by `html` (or marked trusted): inserted into another template unescaped. */
export class Html {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

/** What a template takes: text (escaped), markup, nothing (false, null, undefined) or lists of these. */
export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[];

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeText = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c] as string);

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === false || value === null || value === undefined) return '';
  return escapeText(String(value));
}

// An unquoted attribute value would end at the first space of a value, escaped or not: a template
// that writes one is refused the first time it runs. Checked once per template (call site).
const checked = new WeakSet<TemplateStringsArray>();
function checkQuotedAttributes(strings: TemplateStringsArray): void {
  if (checked.has(strings)) return;
  for (const text of strings.slice(0, -1)) {
    if (/=\s*$/.test(text)) throw new TypeError(`an attribute value must be quoted: ${text.slice(-40)}\${...}`);
  }
  checked.add(strings);
}

/** `html\`<p title="${title}">${text}</p>\``: every value escaped, lists joined, Html kept. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  checkQuotedAttributes(strings);
  let markup = strings[0] as string;
  for (let i = 0; i < values.length; i++) markup += render(values[i]) + strings[i + 1];
  return new Html(markup);
}

/** Markup written by the code itself (a stylesheet), never anything that came with a request. */
export const trustedHtml = (markup: string) => new Html(markup);
