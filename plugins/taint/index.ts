/**
 * Taint: once untrusted content entered a session — a file the trust header calls untrusted (outside the
 * project, node_modules, gitignored …), text that looks like a prompt injection, a web page, an MCP tool's
 * result — the session is tainted, and from then on a write or network call the rules allowed is asked
 * again, citing what tainted the session. Off unless config `taint` turns it on. It only ever raises: a
 * PreToolUse verdict, so a denied call never reaches it and an ask stays an ask (a hook's allow cannot skip
 * it); in dontAsk mode it denies instead of asking. The mark lives in the session (`state:taint`), so it
 * outlives the process with the session store (`toolhost call --session`) and ends with the session.
 */
import { definePlugin, SHAPE_STAGE_TAINT, TAINT_STAGE, TRACE, type BuildView, type CallState, type LoadedPlugin, type PreToolUseContext, type ToolResult } from "../../core/index.ts";
import { raisedBy, RAISES, type Raise } from "./policy.ts";

const PLUGIN_NAME = "taint";
const SOURCES = ["untrusted-files", "injection", "web", "mcp"] as const;
type Source = (typeof SOURCES)[number];
const WEB_TOOLS = new Set(["WebFetch", "WebSearch"]);

interface TaintConfig {
  enabled?: boolean;
  sources?: Source[];
  trustedServers?: string[];
  raise?: Raise[];
}

/** What tainted the session first (kept in the session as plain JSON), and how many results since. */
export interface TaintMark {
  source: Source;
  tool: string;
  what: string;
  at: string;
  count: number;
}

const SCHEMA = {
  description: "Taint policy: once untrusted content entered a session, writes and network calls ask (docs: README, Trust boundaries)",
  oneOf: [
    { type: "boolean" },
    {
      type: "object",
      additionalProperties: false,
      properties: {
        enabled: { type: "boolean", description: "on (default true when the key is an object)" },
        sources: { type: "array", items: { enum: [...SOURCES] }, uniqueItems: true, description: "what taints a session (default: all)" },
        trustedServers: { type: "array", items: { type: "string" }, description: "MCP servers whose results do not taint" },
        raise: { type: "array", items: { enum: [...RAISES] }, uniqueItems: true, description: "which calls a tainted session asks for (default: write and network)" },
      },
    },
  ],
};

interface Policy {
  sources: ReadonlySet<Source>;
  trustedServers: ReadonlySet<string>;
  raise: readonly Raise[];
  file?: string;
}

function policyOf(build: BuildView): Policy | undefined {
  const raw = (build.config as { taint?: boolean | TaintConfig }).taint;
  if (!raw || (typeof raw === "object" && raw.enabled === false)) return undefined;
  const c: TaintConfig = raw === true ? {} : raw;
  const file = build.plugins.find((p: LoadedPlugin) => p.id === "config")?.manifestFile;
  return { sources: new Set(c.sources ?? SOURCES), trustedServers: new Set(c.trustedServers ?? []), raise: c.raise ?? RAISES, file };
}

interface TrustFinding {
  untrusted: { path: string; why: string }[];
  advisory?: string[];
}

/** What in this result taints the session, if anything (first match in SOURCES order). */
function taintOf(p: Policy, call: CallState, result: ToolResult, found: TrustFinding | undefined): Omit<TaintMark, "at" | "count"> | undefined {
  const tool = call.tool!;
  if (found?.untrusted.length && p.sources.has("untrusted-files")) {
    const f = found.untrusted[0]!;
    return { source: "untrusted-files", tool: tool.name, what: `${f.path} (${f.why})${found.untrusted.length > 1 ? ` and ${found.untrusted.length - 1} more` : ""}` };
  }
  if (found?.advisory && p.sources.has("injection")) return { source: "injection", tool: tool.name, what: `text that looks like instructions to a model: ${found.advisory.join("; ")}` };
  if (result.isError) return undefined;
  if (WEB_TOOLS.has(tool.name) && p.sources.has("web")) {
    const input = (call.input ?? {}) as { url?: unknown; query?: unknown };
    return { source: "web", tool: tool.name, what: typeof input.url === "string" ? input.url : `a web search${typeof input.query === "string" ? ` for "${input.query.slice(0, 80)}"` : ""}` };
  }
  if (tool.origin === "mcp" && p.sources.has("mcp") && !(tool.server && p.trustedServers.has(tool.server))) return { source: "mcp", tool: tool.name, what: `the result of MCP server ${tool.server ?? "?"}` };
  return undefined;
}

export function markOf(call: CallState): TaintMark | undefined {
  return call.session.state.get(PLUGIN_NAME)?.get("mark") as TaintMark | undefined;
}

function mark(call: CallState, t: Omit<TaintMark, "at" | "count">): void {
  const state = call.session.stateFor(PLUGIN_NAME);
  const prev = state.get("mark") as TaintMark | undefined;
  const next: TaintMark = prev ? { ...prev, count: prev.count + 1 } : { ...t, at: new Date().toISOString(), count: 1 };
  state.set("mark", next);
  call[TRACE].push({ stage: "taint.mark", plugin: PLUGIN_NAME, ms: 0, outcome: prev ? "tainted-again" : "tainted", detail: t });
}

function raise(p: Policy, pre: PreToolUseContext): void {
  const call = pre.call;
  const m = markOf(call);
  if (!m) return;
  const raised = raisedBy(call, call.cwd).filter((r) => p.raise.includes(r));
  if (!raised.length) return;
  const what = raised.join(" and ");
  const where = p.file ? ` (${p.file}: taint)` : " (config taint)";
  const reason = `the session is tainted: ${m.tool} brought in ${m.what} (${m.source}, ${m.at})${m.count > 1 ? `, and ${m.count - 1} more untrusted results since` : ""}; the taint policy${where} asks before ${what} calls`;
  const dontAsk = call.mode === "dontAsk";
  pre.decide(dontAsk ? "deny" : "ask", dontAsk ? `${reason}; dontAsk mode denies instead of asking` : reason, PLUGIN_NAME, { rule: `taint: ${what}`, file: p.file });
}

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.contributeConfig("taint", SCHEMA);
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      const p = policyOf(build);
      if (!p) return; // off: no tap, no cost per call
      const trust = () => ctx.host.service<{ of(call: CallState): TrustFinding | undefined }>("shaping.trust");
      if (!trust() && (p.sources.has("untrusted-files") || p.sources.has("injection")))
        ctx.report({ path: "/taint/sources", file: p.file, message: "the shaping plugin (trust headers, injection advisories) is not loaded: untrusted files and injection look-alikes cannot taint a session; web pages and MCP results still do", severity: "warning" });
      build.hooks.shape.tap({ name: PLUGIN_NAME, stage: SHAPE_STAGE_TAINT }, (result: ToolResult, call: CallState) => {
        if (!call.tool) return result;
        const t = taintOf(p, call, result, trust()?.of(call));
        if (t) mark(call, t);
        return result;
      });
      build.hooks.preToolUse.tap({ name: PLUGIN_NAME, stage: TAINT_STAGE }, (pre: PreToolUseContext) => raise(p, pre));
    });
  },
});
