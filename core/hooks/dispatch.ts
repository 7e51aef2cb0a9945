/**
 * The one dispatcher every execution stage calls hooks through (rollup's PluginDriver, with a sync fast
 * path). It calls the registered tap functions in tapable's order — each already wrapped by the
 * interceptor (attribution, trace, failure policy) — synchronously until a tap returns a promise, so a
 * call whose taps all answer at once makes no promise. A hook with callback-style taps, or interceptors
 * beyond `register`, goes through tapable itself. Within one synchronous loop a tap starts when the
 * previous one ended (clock.ts: one clock read per traced tap).
 */
import { chain, unchain } from "./clock.ts";
export type MaybePromise<T> = T | Promise<T>;
interface TapRecord {
  type: string;
  fn: (...args: unknown[]) => unknown;
}
interface RawHook {
  taps: TapRecord[];
  interceptors: Array<Record<string, unknown>>;
  call?(...args: unknown[]): unknown;
  promise?(...args: unknown[]): Promise<unknown>;
}

export function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return !!v && typeof (v as Promise<T>).then === "function";
}

/** A hook with no taps does nothing (tapable's isUsed() also counts interceptors, which every hook has). */
export function tapped(hook: object): boolean {
  return ((hook as RawHook).taps?.length ?? 0) > 0;
}

function direct(h: RawHook): boolean {
  for (const t of h.taps) if (t.type !== "sync" && t.type !== "promise") return false;
  for (const i of h.interceptors) if (i.call || i.tap || i.loop || i.result || i.error || i.done || i.context) return false;
  return true;
}

function through(h: RawHook, args: unknown[]): MaybePromise<unknown> {
  return h.promise ? h.promise(...args) : h.call!(...args);
}

function checked(tap: TapRecord, r: unknown): unknown {
  if (tap.type === "promise" && !isPromise(r)) throw new Error(`Tap function (tapPromise) did not return promise (returned ${String(r)})`);
  return r;
}

// Every hook a stage calls takes one or two arguments: fixed arities, no rest arrays or spread calls on
// the per-call path.

/** Bail: taps in order; the first answer that is not undefined is the result. */
export function first<R>(hook: object, a: unknown, b?: unknown): MaybePromise<R | undefined> {
  const h = hook as RawHook;
  if (!direct(h)) return through(h, b === undefined ? [a] : [a, b]) as MaybePromise<R | undefined>;
  return firstFrom<R>(h.taps, 0, a, b);
}
function firstFrom<R>(taps: TapRecord[], from: number, a: unknown, b: unknown): MaybePromise<R | undefined> {
  unchain();
  for (let i = from; i < taps.length; i++) {
    const tap = taps[i]!;
    if (i > from) chain();
    const r = checked(tap, b === undefined ? tap.fn(a) : tap.fn(a, b));
    if (tap.type === "promise") return (r as Promise<R | undefined>).then((v) => (v !== undefined ? v : firstFrom<R>(taps, i + 1, a, b)));
    if (r !== undefined) return r as R;
  }
  return undefined;
}

/** Waterfall: each answer that is not undefined replaces the value handed to the next tap. */
export function reduce<T>(hook: object, value: T, a: unknown): MaybePromise<T> {
  const h = hook as RawHook;
  if (!direct(h)) return through(h, [value, a]) as MaybePromise<T>;
  return reduceFrom(h.taps, 0, value, a);
}
function reduceFrom<T>(taps: TapRecord[], from: number, value: T, a: unknown): MaybePromise<T> {
  unchain();
  for (let i = from; i < taps.length; i++) {
    const tap = taps[i]!;
    if (i > from) chain();
    const r = checked(tap, tap.fn(value, a));
    if (tap.type === "promise") return (r as Promise<T | undefined>).then((v) => reduceFrom(taps, i + 1, v !== undefined ? v : value, a));
    if (r !== undefined) value = r as T;
  }
  return value;
}

/** Series: every tap in order, answers ignored. */
export function series(hook: object, a: unknown): MaybePromise<void> {
  const h = hook as RawHook;
  if (!direct(h)) return through(h, [a]) as MaybePromise<void>;
  return seriesFrom(h.taps, 0, a);
}
function seriesFrom(taps: TapRecord[], from: number, a: unknown): MaybePromise<void> {
  unchain();
  for (let i = from; i < taps.length; i++) {
    const tap = taps[i]!;
    if (i > from) chain();
    const r = checked(tap, tap.fn(a));
    if (tap.type === "promise") return (r as Promise<unknown>).then(() => seriesFrom(taps, i + 1, a));
  }
  return undefined;
}

/** Parallel: every tap at once, answers ignored; settles when all have. */
export function parallel(hook: object, a: unknown): MaybePromise<void> {
  const h = hook as RawHook;
  if (!direct(h)) return through(h, [a]) as MaybePromise<void>;
  const pending: Promise<unknown>[] = [];
  unchain();
  for (let i = 0; i < h.taps.length; i++) {
    const tap = h.taps[i]!;
    if (i > 0) chain();
    const r = checked(tap, tap.fn(a));
    if (tap.type === "promise") pending.push(r as Promise<unknown>);
  }
  return pending.length ? Promise.all(pending).then(() => undefined) : undefined;
}
