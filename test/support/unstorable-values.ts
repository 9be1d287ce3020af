// Values PostgreSQL cannot store, as a client sends them: text with a NUL, a lone surrogate or
// invalid UTF-8 in a percent-escape, and times outside its range; and the ways to put one in a path,
// a query, a form or a JSON body (test/operating/unstorable-input.test.ts).

/** A value sent where text goes: as it travels in a URL or a form, and inside a JSON string. */
export interface BadValue {
  label: string;
  /** Percent-encoded, as it goes in a path, a query or a form. */
  escaped: string;
  /** The bytes inside a JSON string literal. */
  json: Buffer;
  /** Raw bytes, where a header carries them (Basic credentials). */
  raw?: Buffer;
  /** Sent after a valid value (svc_…%00), or alone (a time). */
  appended: boolean;
}

export const unstorableText: BadValue[] = [
  { label: 'NUL', escaped: '%00', json: Buffer.from('\\u0000'), raw: Buffer.from([0x00]), appended: true },
  {
    label: 'a lone surrogate',
    escaped: '%ED%A0%80',
    json: Buffer.from('\\ud800'),
    raw: Buffer.from([0xed, 0xa0, 0x80]),
    appended: true,
  },
  {
    label: 'invalid UTF-8 C3 28',
    escaped: '%C3%28',
    json: Buffer.from([0xc3, 0x28]),
    raw: Buffer.from([0xc3, 0x28]),
    appended: true,
  },
  { label: 'invalid UTF-8 FF', escaped: '%FF', json: Buffer.from([0xff]), raw: Buffer.from([0xff]), appended: true },
];

const time = (text: string): BadValue => ({
  label: `the time ${text}`,
  escaped: encodeURIComponent(text),
  json: Buffer.from(text),
  appended: false,
});
export const unstorableTimes = [time('0000-01-01'), time('+300000-01-01T00:00:00Z')];

/** Path parameters carry text only; query parameters, form fields and JSON members carry times too. */
export const everyValue = [...unstorableText, ...unstorableTimes];

/** Where a bad value goes: which field, and which value. */
export interface BadField {
  name: string;
  value: BadValue;
}

const placeholder = 'UNSTORABLE-VALUE-GOES-HERE';

/** `prefix` with the bad value after it (text), or the bad value alone (a time). */
export const escapedWith = (prefix: string, bad: BadValue) =>
  bad.appended ? `${encodeURIComponent(prefix)}${bad.escaped}` : bad.escaped;

/** A form body: the fields as given, `bad` (if any) in place of one field's value. */
export const formBody = (fields: Iterable<[string, string]>, bad?: BadField) =>
  Buffer.from(
    [...fields]
      .map(([name, value]) =>
        bad?.name === name
          ? `${encodeURIComponent(name)}=${escapedWith(value, bad.value)}`
          : `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
      )
      .join('&'),
  );

/** A JSON body: the example, with `bad` (if any) in place of one member's string. */
export function jsonBody(fields: Record<string, unknown>, bad?: BadField): Buffer {
  if (!bad) return Buffer.from(JSON.stringify(fields));
  const given = fields[bad.name];
  const prefix = Array.isArray(given) ? String(given[0] ?? '') : typeof given === 'string' ? given : '';
  const marked = `${bad.value.appended ? prefix : ''}${placeholder}`;
  const text = JSON.stringify({ ...fields, [bad.name]: Array.isArray(given) ? [marked] : marked });
  const [before, after] = text.split(placeholder) as [string, string];
  return Buffer.concat([Buffer.from(before), bad.value.json, Buffer.from(after)]);
}

/** A query string of names and values already percent-encoded as they should travel. */
export const queryString = (entries: [string, string][]) =>
  entries.length === 0 ? '' : `?${entries.map(([name, value]) => `${encodeURIComponent(name)}=${value}`).join('&')}`;
