/**
 * The interceptor every hook gets: it wraps each tap so an error thrown by a plugin is attributed
 * (plugin id = tap name, hook name, cause), traced, and handled by the hook's failure policy.
 */
import { PluginError } from "../errors.ts";
import type { ProblemReport } from "../errors.ts";
import { TRACE, type TraceEntry, type Traced } from "../types.ts";
import type { FailurePolicy } from "./table.ts";
import { tapEnd, tapFailed, tapStart, tapUntraced } from "./clock.ts";

/** Where isolated errors are recorded. */
export type ProblemSink = (p: ProblemReport) => void;
type TapFn = (...args: unknown[]) => unknown;
interface Tap {
  name: string;
  type: "sync" | "async" | "promise";
  fn: TapFn;
}

/** The trace of a call among a tap's arguments (the call state is the first or second one). */
function traceIn(a: unknown, b: unknown): TraceEntry[] | undefined {
  return (a !== null && typeof a === "object" ? traceField(a) : undefined) ?? (b !== null && typeof b === "object" ? traceField(b) : undefined);
}

function traceOf(args: unknown[]): TraceEntry[] | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a !== null && typeof a === "object") {
      const t = traceField(a);
      if (t !== undefined) return t;
    }
  }
  return undefined;
}

/** An argument may be a caller's raw input: a Proxy or a getter that throws is no trace. */
function traceField(a: object): TraceEntry[] | undefined {
  try {
    return (a as Partial<Traced>)[TRACE];
  } catch {
    return undefined;
  }
}

/** A tap's answer as a trace outcome: a decision's behavior, "returned", or nothing. */
function outcomeOf(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (v && typeof v === "object" && "behavior" in (v as object)) return String((v as { behavior: unknown }).behavior);
  return "returned";
}

/**
 * Install the attribution and tracing interceptor on `hook` (full name "build.deny"). `arity` is the hook's
 * argument count: sync taps of one- and two-argument hooks (every hook of the table) get a wrapper with fixed
 * parameters, so the per-call path allocates no rest array and makes no spread call per tap.
 */
export function instrument<H extends { intercept: Function; name?: string }>(hook: H, name: string, policy: FailurePolicy, sink: ProblemSink, waterfall = false, arity = 0): H {
  (hook as { name?: string }).name = name;
  hook.intercept({
    register(tap: Tap) {
      let reported: ProblemReport | undefined; // one entry per plugin and hook; repeats are counted on it
      const fail = (err: unknown, args: unknown[]) => {
        tapFailed();
        const e = err instanceof PluginError ? err : new PluginError(tap.name, name, err);
        traceOf(args)?.push({ stage: name, plugin: tap.name, ms: 0, outcome: "error", detail: e.message });
        if (policy === "throw") throw e;
        if (reported) repeat(reported, e.message);
        else sink((reported = { ...e.toReport("error"), plugin: tap.name, path: name }));
        return waterfall ? args[0] : undefined;
      };
      const done = (trace: TraceEntry[] | undefined, t0: number, out: unknown) => {
        trace?.push({ stage: name, plugin: tap.name, ms: tapEnd() - t0, outcome: outcomeOf(out) });
        return out;
      };
      tap.fn = tap.type === "sync" ? (arity === 1 || arity === 2 ? wrapSyncFixed(tap.fn, fail, done, arity, waterfall) : wrapSync(tap.fn, fail, done)) : tap.type === "promise" ? wrapPromise(tap.fn, fail, done) : wrapCallback(tap.fn, fail, done);
      return tap;
    },
  });
  return hook;
}

function repeat(p: ProblemReport, message: string): void {
  p.count = (p.count ?? 1) + 1;
  p.lastSeen = new Date().toISOString();
  if (message !== p.message) p.lastMessage = message;
  else delete p.lastMessage;
}

type Fail = (err: unknown, args: unknown[]) => unknown;
type Done = (trace: TraceEntry[] | undefined, t0: number, out: unknown) => unknown;

function wrapSync(fn: TapFn, fail: Fail, done: Done): TapFn {
  return (...args) => {
    const trace = traceOf(args);
    const t0 = trace ? tapStart() : tapUntraced();
    let out: unknown;
    try {
      out = fn(...args);
    } catch (err) {
      return fail(err, args);
    }
    return done(trace, t0, out);
  };
}

/**
 * wrapSync for a hook of one or two arguments: the tap is called with exactly that many, as tapable does.
 * A waterfall hook's first argument is the value passed along (an input, a result: any shape), its second
 * the call: the trace is looked for there first, so the per-call path makes no symbol lookup on the value.
 */
function wrapSyncFixed(fn: TapFn, fail: Fail, done: Done, arity: 1 | 2, waterfall: boolean): TapFn {
  return (a, b) => {
    const trace = waterfall ? traceIn(b, a) : traceIn(a, b);
    const t0 = trace ? tapStart() : tapUntraced();
    let out: unknown;
    try {
      out = arity === 1 ? fn(a) : fn(a, b);
    } catch (err) {
      return fail(err, arity === 1 ? [a] : [a, b]);
    }
    return trace ? done(trace, t0, out) : out;
  };
}

function wrapPromise(fn: TapFn, fail: Fail, done: Done): TapFn {
  return (...args) => {
    const trace = traceOf(args);
    const t0 = trace ? tapStart() : tapUntraced();
    let p: unknown;
    try {
      p = fn(...args);
    } catch (err) {
      return Promise.resolve().then(() => fail(err, args));
    }
    if (!p || typeof (p as Promise<unknown>).then !== "function") return Promise.resolve().then(() => fail(new Error(`tapPromise handler did not return a promise`), args));
    return (p as Promise<unknown>).then((out) => done(trace, t0, out), (err) => fail(err, args));
  };
}

function wrapCallback(fn: TapFn, fail: Fail, done: Done): TapFn {
  return (...argsAndCb) => {
    const cb = argsAndCb[argsAndCb.length - 1] as (err?: unknown, res?: unknown) => void;
    const args = argsAndCb.slice(0, -1);
    const trace = traceOf(args);
    const t0 = trace ? tapStart() : tapUntraced();
    let settled = false;
    const finish = (err?: unknown, res?: unknown) => {
      if (settled) return;
      settled = true;
      if (!err) return cb(null, done(trace, t0, res));
      let out: unknown;
      try {
        out = fail(err, args);
      } catch (e) {
        return cb(e);
      }
      cb(null, out);
    };
    try {
      fn(...args, finish);
    } catch (err) {
      finish(err);
    }
  };
}
