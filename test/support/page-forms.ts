// The links and forms of a page, read as a browser would: for tests that follow every link a site
// shows and fill in every form it holds.

export interface PageForm {
  /** Where the form goes, resolved against the page. */
  action: URL;
  method: 'GET' | 'POST';
  /** Every named field with its value as the page gives it (a select: its first option). */
  fields: Map<string, string>;
}

const entities: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };

const decoded = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return entities[entity.toLowerCase()] ?? whole;
  });

/** The attributes of a start tag's text (`name="x" value='y' checked`). */
function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of tag.matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    found.set((match[1] as string).toLowerCase(), decoded(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return found;
}

/** The forms of a page. */
export function formsOf(html: string, page: URL): PageForm[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((form) => {
    const attrs = attributes(form[1] as string);
    const body = form[2] as string;
    const fields = new Map<string, string>();
    for (const input of body.matchAll(/<(input|button)\b([^>]*)>/gi)) {
      const field = attributes(input[2] as string);
      const name = field.get('name');
      if (name !== undefined && !fields.has(name)) fields.set(name, field.get('value') ?? '');
    }
    for (const area of body.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/gi)) {
      const name = attributes(area[1] as string).get('name');
      if (name !== undefined && !fields.has(name)) fields.set(name, decoded(area[2] as string));
    }
    for (const select of body.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/gi)) {
      const name = attributes(select[1] as string).get('name');
      const option = /<option\b([^>]*)>([^<]*)/i.exec(select[2] as string);
      const value = option ? (attributes(option[1] as string).get('value') ?? decoded(option[2] as string)) : '';
      if (name !== undefined && !fields.has(name)) fields.set(name, value);
    }
    return {
      action: new URL(attrs.get('action') || page.href, page),
      method: attrs.get('method')?.toUpperCase() === 'POST' ? 'POST' : 'GET',
      fields,
    };
  });
}

/** The pages a page links to (a, link), resolved against it. */
export function linksOf(html: string, page: URL): URL[] {
  return [...html.matchAll(/<(?:a|link)\b([^>]*)>/gi)].flatMap((link) => {
    const href = attributes(link[1] as string).get('href');
    if (!href || href.startsWith('#') || /^(mailto|javascript):/i.test(href)) return [];
    try {
      return [new URL(href, page)];
    } catch {
      return [];
    }
  });
}
