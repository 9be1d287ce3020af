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
  | 'console';

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
  /** The code or token presented. */
  presented?: string;
  /** What a successful answer carried: tokens and the consent they were issued under. */
  received?: { access?: string; refresh?: string; consent?: string };
  /** The statuses the load expected (anything else, and no answer, counts as failed). */
  expect: number[];
  /** The answer's X-Request-ID, to find it in the processes' and the gateway's logs. */
  requestId?: string;
  /** Ways the answer broke the contract document (a gateway page instead of a Problem, …). */
  nonconforming?: string[];
}

/** One consent event as the webhook receiver got it. */
export interface Delivery {
  webhookId: string;
  type: string;
  consentId: string;
  signatureValid: boolean;
}

export interface FaultWindow {
  name: string;
  /** What exactly was done (which replica, which port). */
  detail: string;
  start: number;
  end: number;
}

export const failed = (entry: Pick<Entry, 'status' | 'expect'>) =>
  entry.status === null || !entry.expect.includes(entry.status);

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
  observed(name: string, window: { start: number; end: number; detail: string }): void {
    this.faults.push({ name, ...window });
    this.faults.sort((a, b) => a.start - b.start);
  }

  /** Runs `inject` as a fault named `name`, its window from the call to the end of `inject`. */
  async fault(name: string, inject: () => Promise<string>): Promise<FaultWindow> {
    const start = this.now();
    this.under++;
    let detail: string;
    try {
      detail = await inject();
    } catch (error) {
      detail = `failed: ${(error as Error).message.split('\n')[0]}`;
    } finally {
      this.under--;
    }
    const window = { name, detail, start, end: this.now() };
    this.faults.push(window);
    this.faults.sort((a, b) => a.start - b.start);
    return window;
  }
}
