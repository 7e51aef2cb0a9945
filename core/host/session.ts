/**
 * A session is one conversation. It remembers which deferred tools ToolSearch loaded (in load order,
 * which never changes: prompt-cache friendly) and per-tool scratch state (read-before-write …).
 *
 * Persistence seam: `version` counts changes (a load, any set/delete/clear of `shared` or a
 * `stateFor()` map; `touch()` for a value changed in place), so a store plugin (plugins/sessions)
 * writes only when something changed; `ready` is the pending `host.hooks.sessionOpen` that restores
 * the session, awaited by every call before it runs.
 */
import type { SessionData } from "../types.ts";
import { TrackedMap } from "../../lib/tracked-map.ts";

export class Session implements SessionData {
  /** Deferred tool names loaded in this session, in the order they were first loaded. */
  readonly loaded: string[] = [];
  readonly state = new Map<string, Map<string, unknown>>();
  /** Scratch state shared by every tool of the session (ToolCallContext.sessionState). */
  readonly shared: Map<string, unknown>;
  /** Changes so far (see the file comment). */
  version = 0;
  /** The session's restore (host.hooks.sessionOpen) while it runs; calls wait for it. */
  ready?: Promise<void>;
  /** A store plugin's per-call freshness check (SessionData.check); declared here so every session has one shape. */
  check?: () => Promise<void> | undefined = undefined;
  private readonly bump = () => void this.version++;
  constructor(
    readonly id: string,
    private readonly onChange: (id: string) => void = () => {},
  ) {
    this.shared = new TrackedMap(this.bump);
  }

  /** Mark deferred tools as loaded; returns the names that were new. */
  load(names: Iterable<string>): string[] {
    const added: string[] = [];
    for (const n of names) {
      if (!this.loaded.includes(n)) {
        this.loaded.push(n);
        added.push(n);
      }
    }
    if (added.length) {
      this.version++;
      this.onChange(this.id);
    }
    return added;
  }

  isLoaded(name: string): boolean {
    return this.loaded.includes(name);
  }

  stateFor(key: string): Map<string, unknown> {
    let m = this.state.get(key);
    if (!m) this.state.set(key, (m = new TrackedMap(this.bump)));
    return m;
  }

  /** Say that a value inside the session's state changed in place (a nested Map or object). */
  touch(): void {
    this.version++;
  }
}
