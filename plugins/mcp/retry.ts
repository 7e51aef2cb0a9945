/**
 * Background retries of a failed MCP server: exponential backoff capped at RECONNECT.maxMs, one attempt
 * at a time, for as long as it is wanted (the connection is open and its server failed); `stop` on close.
 */

/**
 * Backoff: baseMs · 2^(n−1), capped at maxMs; after `attempts` failed reconnects the tools are removed (retries
 * go on). TOOLHOST_MCP_RETRY_BASE_MS and TOOLHOST_MCP_RETRY_MAX_MS override the two times (tests, soaks).
 */
export const RECONNECT = { baseMs: 250, attempts: 5, maxMs: 30_000 };

function envMs(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

export function maxBackoffMs(): number {
  return envMs("TOOLHOST_MCP_RETRY_MAX_MS", RECONNECT.maxMs);
}

export function backoffMs(n: number): number {
  return Math.min(maxBackoffMs(), envMs("TOOLHOST_MCP_RETRY_BASE_MS", RECONNECT.baseMs) * 2 ** Math.min(n - 1, 20));
}

export class Retrier {
  private n = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  inFlight = false;

  constructor(
    /** One attempt (never rejects); `n` counts attempts since the server was last connected. */
    private readonly attempt: (n: number) => Promise<void>,
    private readonly wanted: () => boolean,
  ) {}

  /** Count attempts from `n` (0 after a success; RECONNECT.attempts after the reconnects gave up). */
  reset(n = 0): void {
    this.n = n;
  }

  schedule(): void {
    if (this.stopped || this.timer || this.inFlight || !this.wanted()) return;
    const n = ++this.n;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped || !this.wanted()) return;
      this.inFlight = true;
      void this.attempt(n).finally(() => {
        this.inFlight = false;
        this.schedule();
      });
    }, backoffMs(n));
    this.timer.unref?.();
  }

  /** Drop the pending attempt (an immediate retry replaces it). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  stop(): void {
    this.stopped = true;
    this.cancel();
  }
}
