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
