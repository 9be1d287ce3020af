// What the soak saw: every request it made (in memory only: the tokens presented and received are
// never printed) and every fault it injected, each with its start and end on one clock.

export type Operation =
  | 'client_credentials'
  | 'cities'
  | 'authorize'
  | 'code'
  | 'refresh'
  | 'reuse'
  | 'revoke'
  | 'me'
  | 'console'
  // the acknowledged-writes loop (load.ts): an operator's suspension, a developer's secret rotation
  | 'suspend'
  | 'unsuspend'
  | 'add_secret'
  | 'revoke_secret'
  /** client credentials of the suspended app, or with a revoked secret: must be refused */
  | 'refused_app';

export interface Entry {
  /** Order of recording (a request is recorded when it ends). */
  seq: number;
  op: Operation;
  /** The refresh family (one consent) the request belongs to, if any. */
  chain?: number;
  /** Milliseconds since the run's start. */
  start: number;
  end: number;
  /** null: no answer at all (reset, refused, timed out): an unknown outcome. */
  status: number | null;
  /** The OAuth error, the Problem's code, or the transport error. */
  error?: string;
  /** The code or token presented (its fingerprint: the history keeps no token). */
  presented?: string;
  /** What a successful answer carried: tokens (fingerprints) and the consent they were issued under. */
  received?: { access?: string; refresh?: string; consent?: string };
  /** The statuses the load expected (anything else, and no answer, counts as failed). */
  expect: number[];
  /** The answer's X-Request-ID, to find it in the processes' and the gateway's logs. */
  requestId?: string;
  /** Ways the answer broke the contract document (a gateway page instead of a Problem, …). */
  nonconforming?: string[];
  /** The end-of-run check of a family still live: its refresh and /me must work. */
  final?: boolean;
  /** A request whose expected answer rests on an acknowledged write (which one, and its request). */
  acknowledged?: { write: string; seq: number };
}

/** One consent event as the webhook receiver got it. */
export interface Delivery {
  webhookId: string;
  type: string;
  consentId: string;
  signatureValid: boolean;
}

/**
 * How long a fault may cost: its failed requests (503s, no answer) end at most `ms` after the
 * fault's start or its end. 0 from the start: nothing may fail.
 */
export interface Bound {
  from: 'start' | 'end';
  ms: number;
}

export interface FaultWindow {
  name: string;
  /** What exactly was done (which replica, which port). */
  detail: string;
  start: number;
  end: number;
  bound: Bound;
  /** The injection threw: the fault was not shown. */
  failed?: boolean;
  /** Nobody injected it: the soak saw it happen (an unplanned failover). */
  observed?: boolean;
}

export const failed = (entry: Pick<Entry, 'status' | 'expect'>) =>
  entry.status === null || !entry.expect.includes(entry.status);
export const is2xx = (entry: Pick<Entry, 'status'>) =>
  entry.status !== null && entry.status >= 200 && entry.status < 300;
export const invalidGrant = (entry: Pick<Entry, 'status' | 'error'>) =>
  entry.status === 400 && entry.error === 'invalid_grant';

export class History {
  readonly entries: Entry[] = [];
  readonly faults: FaultWindow[] = [];
  private readonly origin = performance.now();

  now(): number {
    return Math.round(performance.now() - this.origin);
  }

  record(entry: Omit<Entry, 'seq'>): Entry {
    const recorded = { ...entry, seq: this.entries.length };
    this.entries.push(recorded);
    return recorded;
  }

  /** Whether a planned fault is under way now. */
  get injecting(): boolean {
    return this.under > 0;
  }
  private under = 0;

  /** A fault nobody injected but the soak saw (an unplanned failover): a window of its own. */
  observed(name: string, bound: Bound, window: { start: number; end: number; detail: string }): void {
    this.faults.push({ name, bound, observed: true, ...window });
    this.faults.sort((a, b) => a.start - b.start);
  }

  /** Runs `inject` as a fault named `name`, its window from the call to the end of `inject`. */
  async fault(name: string, bound: Bound, inject: () => Promise<string>): Promise<FaultWindow> {
    const start = this.now();
    this.under++;
    let detail: string;
    let threw = false;
    try {
      detail = await inject();
    } catch (error) {
      detail = `failed: ${(error as Error).message.split('\n')[0]}`;
      threw = true;
    } finally {
      this.under--;
    }
    const window: FaultWindow = { name, detail, start, end: this.now(), bound, ...(threw ? { failed: true } : {}) };
    this.faults.push(window);
    this.faults.sort((a, b) => a.start - b.start);
    return window;
  }
}
