// Failures every layer must recognise by type, never by a message or a name string. A leaf package:
// db and kv throw these, http and the services answer them.

/**
 * A store or service the platform depends on (PostgreSQL, Redis, the auth service's key set) refused,
 * dropped or did not answer in time. Never the caller's fault and never a bug of ours: answered 503
 * (or the OAuth error temporarily_unavailable), never 500, and never a success that skipped a check.
 */
export class DependencyUnavailableError extends Error {
  /** What is unavailable, in words for a log line: "PostgreSQL", "Redis", ... */
  readonly dependency: string;

  constructor(dependency: string, options?: ErrorOptions) {
    super(`${dependency} is unavailable`, options);
    this.name = new.target.name;
    this.dependency = dependency;
  }
}

/**
 * A value PostgreSQL cannot store (text with a NUL or a lone surrogate, an instant outside the
 * years it keeps) reached a statement, and the database boundary did not send it (@devplat/db's
 * guard.ts). The caller's bad value, never a failure of ours: answered 400 (an OAuth
 * invalid_request, the admin command's exit 65), never 500. The doors that resolve ids and parse
 * times refuse such values before any query: reaching this means one of them missed one. The
 * message is fit to show as it is.
 */
export class UnstorableValueError extends Error {
  /** Which kind of value: text, or an instant. */
  readonly kind: 'text' | 'instant';

  constructor(kind: 'text' | 'instant') {
    super(
      kind === 'text'
        ? 'text with a NUL character or a lone surrogate cannot be stored'
        : 'a time before the year 1 or after 9999 cannot be stored',
    );
    this.name = new.target.name;
    this.kind = kind;
  }
}
