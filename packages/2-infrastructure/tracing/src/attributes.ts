// What may become a span attribute. A key must be on the allowlist below (anything else is dropped,
// whatever its value), and a string value must not look like a credential: a JWT, an Authorization
// value, one of our own secret formats, a URL with a password, `name=value` text naming a secret,
// or a long random-looking run of characters. A dropped attribute is simply absent: a span never
// says what it would have carried.
import type { Attributes as OtelAttributes, Span } from '@opentelemetry/api';

export type AttributeValue = string | number | boolean;

/** Attributes as callers give them; undefined values are left out. */
export type Attributes = Readonly<Record<string, AttributeValue | undefined>>;

/**
 * Every attribute key a span may carry. The semantic conventions' HTTP, database and error keys,
 * and ours under `devplat.` (none of which names a secret). Adding a key here is a review decision:
 * its values must never be a secret, a token, a code or a password.
 */
export const allowedAttributeKeys: ReadonlySet<string> = new Set([
  // HTTP, server and client (never url.full, url.path, url.query or any header)
  'http.request.method',
  'http.request.method_original',
  'http.response.status_code',
  'http.route',
  'url.scheme',
  'server.address',
  'server.port',
  'error.type',
  // Databases (the statement text, never its parameter values; the command name, never its keys)
  'db.system.name',
  'db.namespace',
  'db.operation.name',
  'db.query.text',
  'db.response.status_code',
  // Ours
  'devplat.request_id',
  'devplat.oauth.grant_type',
  'devplat.oauth.client_id',
  'devplat.oauth.error',
  'devplat.webhook.event_id',
  'devplat.webhook.event_type',
  'devplat.webhook.attempt',
  'devplat.webhook.outcome',
]);

// Our own secret formats: client secrets (svs_), authorization codes (sva_), webhook signing
// secrets (whsec_). Client ids (svc_) are public and pass.
const ownSecret = /\b(?:svs|sva|whsec)_[A-Za-z0-9+/=_-]{8,}/;
// A JWT or any JOSE object: base64url of '{"' starts every header.
const jose = /eyJ[A-Za-z0-9_-]{8,}/;
const authorizationValue = /\b(?:bearer|basic|digest)\s+[A-Za-z0-9._~+/=-]{6,}/i;
const urlWithPassword = /[a-z][a-z0-9+.-]*:\/\/[^/\s@]*:[^/\s@]*@/i;
// `name=value` or `name: value` text naming a secret (a SQL comparison with a placeholder, such as
// `"token" = $1`, carries no value and passes), or a query string's code.
const namedSecret =
  /(?:password|passwd|secret|token|code_verifier|assertion|authorization|api[_-]?key|cookie)["']?\s*[=:]\s*(?!\$\d)[^\s,;)]|[?&;]code=/i;
const longRun = /[A-Za-z0-9+/_-]{20,}/g;

/**
 * Whether a run of 20 or more characters looks random: mixed case with digits or symbols, or with
 * more capitals than an identifier in camel case has (a fifth), or long hex.
 */
function randomLooking(run: string): boolean {
  const capitals = run.replace(/[^A-Z]/g, '').length;
  if (capitals > 0 && /[a-z]/.test(run) && (/[0-9+/_-]/.test(run) || capitals * 5 >= run.length)) return true;
  return run.length >= 32 && /^[0-9a-f]+$/i.test(run);
}

/** Whether a string could carry a credential (then it never becomes an attribute). */
export function looksSecret(value: string): boolean {
  if (
    ownSecret.test(value) ||
    jose.test(value) ||
    authorizationValue.test(value) ||
    urlWithPassword.test(value) ||
    namedSecret.test(value)
  ) {
    return true;
  }
  for (const [run] of value.matchAll(longRun)) if (randomLooking(run)) return true;
  return false;
}

/** The value if the key is allowed and the value safe, else undefined. */
export function safeValue(key: string, value: AttributeValue | undefined): AttributeValue | undefined {
  if (value === undefined || !allowedAttributeKeys.has(key)) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string' || looksSecret(value)) return undefined;
  return value;
}

/** The attributes that pass: allowed keys with safe values. */
export function sanitize(attributes: Attributes): OtelAttributes {
  const safe: OtelAttributes = {};
  for (const key of Object.keys(attributes)) {
    const value = safeValue(key, attributes[key]);
    if (value !== undefined) safe[key] = value;
  }
  return safe;
}

/** Sets the attributes that pass on a span. */
export function setSafeAttributes(span: Span, attributes: Attributes): void {
  span.setAttributes(sanitize(attributes));
}

/** A span name as given, unless it looks like it carries a credential. */
export function safeName(name: string, fallback: string): string {
  return looksSecret(name) ? fallback : name;
}

/** A short, safe type for a failure: its code when it has a plain one, else its class name. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Za-z0-9_]{1,40}$/.test(code)) return code;
  const name = (error as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && /^[A-Za-z0-9_]{1,60}$/.test(name)) return name;
  return 'Error';
}
