/**
 * A session is one conversation. It remembers which deferred tools ToolSearch loaded (in load order,
 * which never changes: prompt-cache friendly) and per-tool scratch state (read-before-write …).
 */
import type { SessionData } from "../types.ts";

export class Session implements SessionData {
  /** Deferred tool names loaded in this session, in the order they were first loaded. */
  readonly loaded: string[] = [];
  readonly state = new Map<string, Map<string, unknown>>();
  /** Scratch state shared by every tool of the session (ToolCallContext.sessionState). */
  readonly shared = new Map<string, unknown>();
  constructor(
    readonly id: string,
    private readonly onChange: (id: string) => void = () => {},
  ) {}

  /** Mark deferred tools as loaded; returns the names that were new. */
  load(names: Iterable<string>): string[] {
    const added: string[] = [];
    for (const n of names) {
      if (!this.loaded.includes(n)) {
        this.loaded.push(n);
        added.push(n);
      }
    }
    if (added.length) this.onChange(this.id);
    return added;
  }

  isLoaded(name: string): boolean {
    return this.loaded.includes(name);
  }

  stateFor(key: string): Map<string, unknown> {
    let m = this.state.get(key);
    if (!m) this.state.set(key, (m = new Map()));
    return m;
  }
}
