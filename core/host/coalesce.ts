/**
 * The only coalescer of rebuilds: invalidate(reason) debounces (a storm that never pauses still rebuilds
 * every `maxWaitMs`), and rebuild() is serialised — every request made while one runs joins one run after it.
 */
import { errorMessage } from "../errors.ts";

export class Coalescer<R> {
  private timer?: NodeJS.Timeout;
  private readonly pendingReasons = new Set<string>();
  private firstPending?: number;
  private running?: Promise<R>;
  private next?: { promise: Promise<R>; reasons: Set<string> };

  constructor(
    private readonly run: (reason: string) => Promise<R>,
    private readonly opts: { debounceMs?: number; maxWaitMs?: number; onError: (msg: string) => void },
  ) {}

  invalidate(reason: string): void {
    this.pendingReasons.add(reason);
    const wait = this.opts.debounceMs ?? 50;
    const maxWait = this.opts.maxWaitMs ?? Math.max(1000, wait * 20);
    const now = performance.now();
    this.firstPending ??= now;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.firstPending = undefined;
      const reasons = [...this.pendingReasons];
      this.pendingReasons.clear();
      void this.rebuild(joinReasons(reasons)).catch((e) => this.opts.onError(`rebuild failed: ${errorMessage(e)}`));
    }, Math.max(0, Math.min(wait, this.firstPending + maxWait - now)));
  }

  rebuild(reason: string): Promise<R> {
    if (!this.running) {
      const p = this.run(reason).finally(() => {
        this.running = undefined;
      });
      this.running = p;
      return p;
    }
    if (this.next) {
      this.next.reasons.add(reason);
      return this.next.promise;
    }
    const reasons = new Set([reason]);
    const promise = this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.rebuild(joinReasons([...reasons]));
      });
    this.next = { promise, reasons };
    return promise;
  }

  /** Stop the timer and wait for what runs or is queued. */
  async settle(): Promise<void> {
    clearTimeout(this.timer);
    await this.running?.catch(() => {});
    await this.next?.promise.catch(() => {});
  }
}

export function joinReasons(reasons: string[]): string {
  return reasons.length <= 5 ? reasons.join("; ") : `${reasons.slice(0, 5).join("; ")}; and ${reasons.length - 5} more`;
}
