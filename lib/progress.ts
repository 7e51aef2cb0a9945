/**
 * A terminal's progress line for long steps (`ctx.step`: an MCP server starting, an install): a step shows
 * only once it has run for `delayMs`, on one line redrawn in place, and the line is cleared when nothing
 * runs. The CLI draws it on stderr when stderr is a terminal and not at all when it is piped.
 */
import type { StepEvent } from "../core/types.ts";

/** Where the line is drawn: `show` replaces the line, `clear` removes it. */
export interface StatusLine {
  show(text: string): void;
  clear(): void;
}

export interface StepProgress {
  onStep(event: StepEvent): void;
  /** Stop drawing (and clear the line). */
  close(): void;
}

let stepIds = 0;
/** A step's paired events: `start` now, `end` (once, with its duration) when the returned function is called. */
export function startStep(emit: (event: StepEvent) => void, plugin: string, label: string): (ok?: boolean) => void {
  const id = ++stepIds;
  const t0 = performance.now();
  emit({ id, plugin, label, phase: "start" });
  let ended = false;
  return (ok = true) => {
    if (ended) return;
    ended = true;
    emit({ id, plugin, label, phase: "end", ms: performance.now() - t0, ok });
  };
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export function stepProgress(line: StatusLine, opts: { delayMs?: number; intervalMs?: number; now?: () => number } = {}): StepProgress {
  const delay = opts.delayMs ?? 1000;
  const now = opts.now ?? (() => performance.now());
  const running = new Map<number, { label: string; t0: number }>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let shown = false;
  let frame = 0;
  const draw = () => {
    const t = now();
    const due = [...running.values()].filter((s) => t - s.t0 >= delay);
    if (!due.length) {
      if (shown) line.clear();
      shown = false;
      return;
    }
    const first = due[0]!;
    const more = due.length > 1 ? ` (+${due.length - 1} more)` : "";
    line.show(`${FRAMES[frame++ % FRAMES.length]} ${first.label}… ${Math.floor((t - first.t0) / 1000)}s${more}`);
    shown = true;
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (shown) line.clear();
    shown = false;
  };
  return {
    onStep(e) {
      if (e.phase === "start") {
        running.set(e.id, { label: e.label, t0: now() });
        if (!timer) (timer = setInterval(draw, opts.intervalMs ?? 200)).unref?.();
        return;
      }
      running.delete(e.id);
      if (running.size) draw();
      else stop();
    },
    close: () => {
      running.clear();
      stop();
    },
  };
}

/** The status line of a terminal stream: the text cut to the width, redrawn with a carriage return. */
export function terminalLine(stream: { columns?: number; write(text: string): unknown }): StatusLine & { readonly text: string | undefined } {
  let text: string | undefined;
  return {
    get text() {
      return text;
    },
    show(t) {
      const width = Math.max(20, (stream.columns || 80) - 1);
      text = t.length > width ? t.slice(0, width - 1) + "…" : t;
      stream.write(`\r\x1b[2K${text}`);
    },
    clear() {
      if (text !== undefined) stream.write("\r\x1b[2K");
      text = undefined;
    },
  };
}
