/**
 * Session approvals ("allow" for this session): remembered when given (as a trimmed copy of the call's
 * input, enough to re-create the rule), and replayed into the permissions plugin when the session is
 * restored or another instance added one. Replaying is not a new approval, so it is not recorded again.
 */
import type { PermissionRuleUpdate, PluginContext } from "../../core/index.ts";
import { FIELDS } from "../../lib/session-store/index.ts";
import type { Track } from "./track.ts";

/** The input keys kept with an approval (what a rule's specifier can match). */
const TRIM_KEYS = ["command", "file_path", "notebook_path", "filePath", "path", "url"];

export class Approvals {
  private restoring = false;

  constructor(
    private readonly ctx: PluginContext,
    private readonly tracks: ReadonlyMap<string, Track>,
  ) {}

  /** host.hooks.addPermissionRule (observer, before the permissions plugin takes it): remember session approvals. */
  record(u: PermissionRuleUpdate): undefined {
    if (this.restoring || u.destination !== "session" || u.sessionId === undefined || u.behavior !== "allow") return undefined;
    const t = this.tracks.get(u.sessionId);
    if (!t?.persistent) return undefined;
    const src = (u.input ?? {}) as Record<string, unknown>;
    const input = Object.fromEntries(TRIM_KEYS.filter((k) => typeof src[k] === "string").map((k) => [k, src[k] as string]));
    const key = `${u.tool ?? ""} ${u.rule} ${JSON.stringify(input)}`.slice(0, 2000);
    t.approved.add(key);
    t.ops.push({ op: "set", field: FIELDS.approvals, key, value: { behavior: u.behavior, rule: u.rule, tool: u.tool ?? null, input } });
    return undefined;
  }

  /** Give the permissions plugin the stored approvals this copy does not hold yet. */
  replay(sessionId: string, t: Track, approvals: Record<string, unknown>): void {
    this.restoring = true;
    try {
      for (const [key, v] of Object.entries(approvals)) {
        if (t.approved.has(key)) continue;
        t.approved.add(key);
        const a = v as { behavior?: string; rule?: string; tool?: string; input?: unknown };
        if (a.behavior !== "allow" || typeof a.rule !== "string") continue;
        this.ctx.host.addPermissionRule?.({ behavior: "allow", rule: a.rule, destination: "session", tool: a.tool, input: a.input, sessionId });
      }
    } finally {
      this.restoring = false;
    }
  }
}
