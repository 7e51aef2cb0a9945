/**
 * Runs adversarial-corpus cases through toolhost's real host: createHost in a scratch layout (./layout.mjs) with the
 * case's settings as project/.claude/settings.json, the case's mode, the built-in tools (real Bash, Read, Write, Grep,
 * Glob) and echo MCP tools. Cases that share settings, mode and files share one host and are decided with dryRun;
 * a `live` case gets a fresh layout and is executed for real (no approver: an ask is not approved), and its `effect`
 * is checked afterwards. Used by adversarial-corpus.test.ts and bench/permissions-corpus.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, defineTool, definePlugin, type Host, type Tool } from "../../../core/index.ts";
import { layout, loadCases, substitute, type CorpusCase, type Layout } from "./layout.mjs";

export type { CorpusCase };
export const corpusDir = path.dirname(new URL(import.meta.url).pathname);
export { loadCases };

export interface CaseResult {
  id: string;
  decision: string;
  rule?: string;
  reason?: string;
  /** live cases: whether the side effect happened (undefined when the case is not live). */
  effectHappened?: boolean;
  executed?: boolean;
}

const MCP_TOOLS = ["mcp__github__get_issue", "mcp__github__create_issue", "mcp__db__query", "mcp__fs__read_file", "mcp__fs__write_file"];

const mcpPlugin = definePlugin({
  name: "corpus-mcp-tools",
  apply(ctx) {
    ctx.hooks.build.tap("corpus-mcp-tools", (build) => {
      build.hooks.collect.tap("corpus-mcp-tools", (c) => {
        for (const name of MCP_TOOLS) {
          const t = defineTool({ name, description: `mcp tool ${name}`, inputSchema: { properties: { q: { type: "string" } } }, call: () => `${name} ran` });
          c.add({ ...t, origin: "mcp", plugin: "corpus-mcp-tools", server: name.split("__")[1] } as Tool);
        }
      });
    });
  },
});

function scratch(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-corpus-")));
}

async function hostFor(L: Layout, mode: string): Promise<Host> {
  return createHost({
    cwd: L.project,
    mode,
    config: { disabledPlugins: ["tool-search", "mcp", "lsp", "watch", "transcript"] },
    plugins: [mcpPlugin],
    debounceMs: 5,
    // Claude Code was recorded in a trusted workspace (cc-oracle README); so is every case here, in and out of vitest.
    trustWorkspace: true,
  });
}

function effectHappened(c: CorpusCase, L: Layout, before?: string): boolean | undefined {
  if (!c.effect) return undefined;
  if (c.effect.changed) return before === undefined || contentOf(path.resolve(L.project, c.effect.changed)) !== before;
  if (c.effect.gone) return !fs.existsSync(path.resolve(L.project, c.effect.gone));
  if (c.effect.made) return fs.existsSync(path.resolve(L.project, c.effect.made)) || isLinkTargetMade(path.resolve(L.project, c.effect.made));
  return undefined;
}

function contentOf(p: string): string | undefined {
  try {
    return fs.readFileSync(p, "utf8");
  } catch {
    return undefined;
  }
}

function isLinkTargetMade(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

async function decide(h: Host, c: CorpusCase, L: Layout, dryRun: boolean): Promise<CaseResult> {
  const o = await h.execute(c.tool, substitute(c.input, L), { dryRun, onAsk: undefined });
  return { id: c.id, decision: o.decision ?? o.status, rule: o.rule, reason: o.reason, executed: o.executed };
}

/** Decide every case (in groups), live ones executed for real in their own scratch layout. */
export async function runCorpus(cases: CorpusCase[], opts: { live?: boolean } = {}): Promise<Map<string, CaseResult>> {
  const out = new Map<string, CaseResult>();
  const groups = new Map<string, CorpusCase[]>();
  for (const c of cases) {
    if (opts.live !== false && c.live) continue;
    const k = JSON.stringify([c.settings, c.mode, c.files ?? {}]);
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  for (const g of groups.values()) {
    const root = scratch();
    try {
      const L = layout(root, g[0].files ?? {}, g[0].settings);
      const h = await hostFor(L, g[0].mode);
      try {
        for (const c of g) out.set(c.id, await decide(h, c, L, true));
      } finally {
        await h.close();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  if (opts.live !== false) for (const c of cases.filter((x) => x.live)) out.set(c.id, await runLive(c));
  return out;
}

async function runLive(c: CorpusCase): Promise<CaseResult> {
  const root = scratch();
  try {
    const L = layout(root, c.files ?? {}, c.settings);
    const original = c.effect?.changed ? contentOf(path.resolve(L.project, c.effect.changed)) : undefined;
    if (c.effect?.changed && original === undefined) throw new Error(`${c.id}: ${c.effect.changed} does not exist before the call — the case is wrong`);
    const before = effectHappened(c, L, original);
    if (before) throw new Error(`${c.id}: the effect ${JSON.stringify(c.effect)} holds before the call — the case is wrong`);
    const h = await hostFor(L, c.mode);
    try {
      const r = await decide(h, c, L, false);
      return { ...r, effectHappened: effectHappened(c, L, original) };
    } finally {
      await h.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export interface CcRecord { decision: string; source?: string; reason?: string }
export function ccRecordings(): { version: string; recordedAt?: string; cases: Record<string, CcRecord> } {
  return JSON.parse(fs.readFileSync(path.join(corpusDir, "cc-recordings.json"), "utf8"));
}
export function knownGaps(): Record<string, string> {
  return JSON.parse(fs.readFileSync(path.join(corpusDir, "known-gaps.json"), "utf8"));
}
