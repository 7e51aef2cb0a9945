/**
 * A cheap stand-in for AbortSignal, shared by the MCP client (per upstream call) and `toolhost serve`
 * (per client request).
 */

/**
 * The part of AbortSignal that the SDK's `Protocol.request()`, `connectedClient()` and the executor's
 * caller-signal handling use — `aborted`, `reason`, `throwIfAborted()`, `addEventListener("abort")` /
 * `removeEventListener`, `onabort` — aborted by calling `abort()`. A real AbortSignal per call costs an
 * AbortController (Node builds it with `Object.setPrototypeOf` on an EventTarget) and EventTarget
 * listeners (the SDK never removes its own); in `toolhost serve` that was several microseconds per
 * call (docs/mcp.md, "Hot path"). Cancellation behaves the same: an abort makes the SDK send
 * notifications/cancelled upstream and reject the request.
 */
export class LightSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((ev: { type: "abort" }) => void) | null = null;
  private listeners?: Array<(ev: { type: "abort" }) => void> = undefined;

  /** With a tool call's context: aborted by its `onAbort` (no AbortSignal is created for the call). */
  constructor(ctx?: { onAbort?(listener: (reason: unknown) => void): void }) {
    ctx?.onAbort?.((reason) => this.abort(reason));
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: (ev: { type: "abort" }) => void): void {
    if (type === "abort") (this.listeners ??= []).push(listener);
  }

  removeEventListener(type: string, listener: (ev: { type: "abort" }) => void): void {
    const ls = this.listeners;
    if (type !== "abort" || !ls) return;
    if (ls.length === 1) {
      if (ls[0] === listener) this.listeners = undefined;
    } else this.listeners = ls.filter((l) => l !== listener);
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    const ev = { type: "abort" as const };
    const ls = this.listeners;
    this.listeners = undefined;
    this.onabort?.(ev);
    if (ls) for (const l of ls) l(ev);
  }

  /** Typed as the AbortSignal it stands in for (structurally it is the part that is used). */
  get asSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
