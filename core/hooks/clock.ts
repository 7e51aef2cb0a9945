/**
 * Trace timing with one clock read per tap instead of two (performance.now() is ≈ 0.1 µs here, a tenth
 * of a no-op call's own cost when every tap read it twice). Between two taps the dispatcher calls in
 * one synchronous loop nothing else runs, so the next tap starts when the previous one ended; every
 * other tap — the first of a loop, one called after an await, a hook called inside a tap — reads the
 * clock at its start as before.
 */
let end = 0; // when the last traced tap ended
let fresh = false; // `end` is the end of the tap that ran last (not of one before a failure or a start)
let offered = false; // the dispatcher handed `end` to the next tap as its start

/** A traced tap starts: the time it started at. */
export function tapStart(): number {
  fresh = false;
  if (offered) {
    offered = false;
    return end;
  }
  return performance.now();
}

/** A tap without a trace starts: it takes no time reading, and hands none on. */
export function tapUntraced(): number {
  offered = fresh = false;
  return 0;
}

/** A traced tap answered: the time it ended at. */
export function tapEnd(): number {
  fresh = true;
  return (end = performance.now());
}

/** A tap failed: the next one reads the clock itself. */
export function tapFailed(): void {
  fresh = false;
}

/** The dispatcher, before a tap other than the first of its synchronous loop. */
export function chain(): void {
  offered = fresh;
  fresh = false;
}

/** The dispatcher, before the first tap of a loop. */
export function unchain(): void {
  offered = false;
}
