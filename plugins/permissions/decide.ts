/**
 * Decisions for one call, in Claude Code's order: deny → ask → allow, first match, specificity never
 * matters; then modes, the tool's own checkPermissions, and read-only-inside-the-working-directories.
 *
 *   denyDecision      (build.deny)                         deny rules only
 *   rulesDecision     (build.permission, RULES stage)      ask rules, plan, bypass, protected paths, allow rules, acceptEdits
 *   toolDecision      (build.permission, TOOL stage)       checkPermissions, read-only defaults
 *   fallbackDecision  (build.permission, last)             dontAsk → deny; otherwise an ask that says what was missing
 */
import { flag, type Decision, type Tool } from "../../core/index.ts";
import type { Segment } from "../../lib/rules/bash.ts";
import { insideDirs, linkOutOf, protectedReason, resolvePath, type ResolvedPath } from "../../lib/rules/paths.ts";
import { mcpFilePaths } from "../../lib/fs-path.ts";
import { callFacts, ruleHit, segmentAllowedBy, suspectHit, type CallFacts, type Hit } from "../../lib/rules/match.ts";
import { BASH_TOOLS, EDIT_TOOLS, READ_TOOLS, STDIN_TOOLS } from "../../lib/rules/rule.ts";
export { factsFor } from "../../lib/rules/facts.ts";
import { readOnlyBash } from "../../lib/rules/readonly.ts";
import { criticalRemoval } from "../../lib/rules/critical.ts";
import { allowMayHit, bashMayHit, bashPathMayHit, suspectMayHit } from "../../lib/rules/prefilter.ts";
import { where, type RuleEntry, type RuleSet } from "./rules.ts";

export const PLUGIN_NAME = "permissions";

export interface CallView {
  toolName: string;
  tool?: Tool;
  input: unknown;
  cwd: string;
  mode: string;
  /** Where a shell command really runs (a `cd` carried over from an earlier Bash call); relative paths in it resolve here. */
  shellCwd?: string;
}

function fromRule(e: RuleEntry, behavior: Decision["behavior"], hit: Hit | undefined, explicit = true): Decision {
  const what = hit?.what;
  const verb = e.behavior === "deny" ? "denies" : e.behavior === "ask" ? "asks for" : "allows";
  return {
    behavior,
    reason: `${e.behavior} rule "${e.source}" ${verb} ${what ? `\`${what}\`` : "this tool"}${hit?.via ? ` in \`${hit.via}\`` : ""} (${where(e)})`,
    rule: e.source,
    plugin: e.plugin,
    file: e.file,
    explicit,
  };
}

/**
 * The first rule of one list that matches, as a decision. For a tool whose calls the rules can only
 * tell apart by name (not a Bash, file, WebFetch tool; no parameter/agent/skill rule names it — e.g.
 * every MCP tool), the answer is the same for every call: it is computed once per rule set (a new
 * set per build, and whenever a session rule is added) and tool name.
 */
type Which = "deny" | "ask" | "allow";
interface NameOnly {
  deny?: Decision | null;
  ask?: Decision | null;
  allow?: Decision | null;
}
const nameOnlyCache = new WeakMap<RuleSet, Map<string, NameOnly | false>>();
const INPUT_KINDS = new Set(["param", "agent", "skill", "generic"]);

let lastSet: RuleSet | undefined;
let lastMap: Map<string, NameOnly | false> | undefined;

function nameOnly(rs: RuleSet, tool: string): NameOnly | undefined {
  let m = rs === lastSet ? lastMap : nameOnlyCache.get(rs);
  if (!m) nameOnlyCache.set(rs, (m = new Map()));
  lastSet = rs;
  lastMap = m;
  let v = m.get(tool);
  if (v === undefined) {
    const inputMatters =
      BASH_TOOLS.has(tool) || STDIN_TOOLS.has(tool) || tool === "PowerShell" || READ_TOOLS.has(tool) || EDIT_TOOLS.has(tool) || tool === "WebFetch" ||
      [rs.deny, rs.ask, rs.allow].some((l) => l.some((e) => e.rule.kind !== "tool" && (INPUT_KINDS.has(e.rule.kind) ? e.rule.tool === tool : !["bash", "path", "domain"].includes(e.rule.kind))));
    m.set(tool, (v = inputMatters ? false : {}));
  }
  return v || undefined;
}

function firstRule(rs: RuleSet, which: Which, f: CallFacts, explicit: boolean): Decision | undefined {
  const cache = nameOnly(rs, f.tool);
  const hit = cache?.[which];
  if (hit !== undefined) return hit === null ? undefined : { ...hit };
  let d: Decision | undefined;
  // Bash rules only when one of them may hit (lib/rules/prefilter.ts): the loop below decides, in rule order.
  const bash = which !== "allow" && !!f.bash && bashMayHit(rs[which], f.bash.segments);
  const paths = which === "allow" || !f.bash || !!f.paths || bashPathMayHit(rs[which], f, which);
  for (const e of rs[which]) {
    if ((e.rule.kind === "bash" && !bash && which !== "allow") || (e.rule.kind === "path" && !paths)) continue;
    const h = ruleHit(e.rule, f, which, e.rulesRoot);
    if (h) {
      d = fromRule(e, which, h, explicit);
      break;
    }
  }
  if (cache) cache[which] = d ? { ...d } : null;
  return d;
}

export function denyDecision(rs: RuleSet, call: CallView, f: CallFacts): Decision | undefined {
  if (rs.caseInsensitivePaths) foldPaths(f);
  return firstRule(rs, "deny", f, true) ?? mcpReadRule(rs, "deny", call);
}

/**
 * One boundary for every read: an MCP filesystem-kind call (`read_file {path}`, `read_multiple_files
 * {paths}`, `list_directory {path}`) is checked against Read deny/ask rules like Read's `file_path`.
 */
function mcpReadRule(rs: RuleSet, which: "deny" | "ask", call: CallView): Decision | undefined {
  if (!call.toolName.startsWith("mcp__") || !rs[which].some((e) => e.rule.kind === "path" && e.rule.family === "read")) return undefined;
  const files = mcpFilePaths(call.toolName, call.input, call.cwd);
  if (!files) return undefined;
  const paths = files.map((abs) => ({ ...resolvePath(abs, call.cwd), fold: rs.caseInsensitivePaths }));
  const facts: CallFacts = { tool: "Read", input: {}, cwd: call.cwd, paths };
  for (const e of rs[which]) {
    if (e.rule.kind !== "path" || e.rule.family !== "read" || (e.rule.onlyTool && e.rule.onlyTool !== "Read")) continue;
    const h = ruleHit(e.rule, facts, which, e.rulesRoot);
    if (h) return fromRule(e, which, { what: h.what, via: `${call.toolName}` }, true);
  }
  return undefined;
}

/** `permissions.caseInsensitivePaths`: every path of the call is matched case-insensitively (stricter deny, as Claude Code). */
function foldPaths(f: CallFacts): void {
  for (const p of f.paths ?? []) p.fold = true;
  for (const p of f.searchGlobs ?? []) p.fold = true;
  for (const m of [f.segReads, f.segWrites]) for (const ps of m?.values() ?? []) for (const p of ps) p.fold = true;
}

function workDirs(rs: RuleSet, cwd: string): string[] {
  return [cwd, ...rs.additionalDirectories];
}

/**
 * The shell facts that may *approve* a call: none for write_stdin (what it types goes to whatever process
 * runs — a REPL, an editor — so a "read-only" looking line proves nothing; deny/ask rules still check it).
 */
function approvable(f: CallFacts): CallFacts["bash"] {
  return STDIN_TOOLS.has(f.tool) ? undefined : f.bash;
}

/** Is this call read-only (for plan mode)? Bash: every segment is a recognised read-only command and nothing is written. */
export function isReadOnlyCall(call: CallView, f: CallFacts): boolean {
  if (STDIN_TOOLS.has(f.tool)) return false;
  if (f.bash) return readOnlyBash(f);
  return !!call.tool && flag(call.tool.isReadOnly, call.input as never, false);
}

/** Paths this call writes: Edit-family paths, Bash writes and redirections. */
function writesOf(f: CallFacts): ResolvedPath[] {
  if (EDIT_TOOLS.has(f.tool)) return f.paths ?? [];
  if (f.bash) return f.bash.segments.flatMap((s) => f.segWrites!.get(s) ?? []);
  return [];
}

/**
 * `readDeniedElsewhere`: whether another plugin's Read denials are in force for this call (the host's
 * `readFilter` hook, e.g. AGENTS.md rules) — a recursive shell search must ask for those too.
 */
export function rulesDecision(rs: RuleSet, call: CallView, f: CallFacts, readDeniedElsewhere?: () => boolean): Decision | undefined {
  const mode = call.mode;
  if (rs.caseInsensitivePaths) foldPaths(f);
  const ask = (d: Decision): Decision => (mode === "dontAsk" ? { ...d, behavior: "deny", reason: `${d.reason}; dontAsk mode denies instead of asking` } : d);

  const askRule = firstRule(rs, "ask", f, true) ?? mcpReadRule(rs, "ask", call);
  if (askRule) return ask(askRule);
  // Deny rules must see through unknown wrappers: a hit after an unknown program asks (never auto-approved).
  if (f.bash && (suspectMayHit(rs.deny, f.bash.segments) || suspectMayHit(rs.ask, f.bash.segments))) {
    for (const e of [...rs.deny, ...rs.ask]) {
      for (const s of f.bash.segments) {
        const t = suspectHit(e.rule, s);
        if (t) {
          return ask({
            behavior: "ask",
            reason: `\`${s.text}\` may run \`${t}\` through \`${s.words[0]}\`, which ${e.behavior} rule "${e.source}" covers (${where(e)})`,
            rule: e.source,
            plugin: e.plugin,
            file: e.file,
            explicit: true,
          });
        }
      }
    }
  }
  if (mode === "plan" && !isReadOnlyCall(call, f)) {
    return { behavior: "deny", reason: `plan mode runs read-only tools only; ${call.toolName} ${f.bash ? `\`${f.bash.command}\` ` : ""}is not read-only`, rule: "mode: plan", plugin: PLUGIN_NAME, explicit: true };
  }
  // Removing /, a top-level directory, home, the working directory or a parent: never auto-approved, in any mode.
  const crit = f.bash && criticalRemoval(f.bash.segments, call.cwd);
  if (crit) {
    return ask({
      behavior: "ask",
      reason: `\`${crit.segment.text}\` ${crit.verb} ${crit.abs} (${crit.what}): removing the root, a top-level directory, the home directory, the working directory or one of its parents is never auto-approved, in any mode`,
      rule: "critical path",
      plugin: PLUGIN_NAME,
      explicit: true,
    });
  }
  if (mode === "bypassPermissions") return { behavior: "allow", reason: "bypassPermissions mode allows every call no rule denies or asks for", rule: "mode: bypassPermissions", plugin: PLUGIN_NAME };

  const prot = writesOf(f)
    .map((p) => ({ p, why: protectedReason(p) }))
    .find((x) => x.why);
  if (prot) {
    return ask({ behavior: "ask", reason: `writing ${prot.p.abs} needs approval: ${prot.why} (never auto-approved outside bypassPermissions mode)`, rule: "protected path", plugin: PLUGIN_NAME, explicit: true });
  }

  if (approvable(f)) {
    const a = bashApproval(rs, f, mode, workDirs(rs, call.cwd), false);
    if (a.ok) return { behavior: "allow", reason: a.reason, rule: a.rule?.source ?? a.label, plugin: a.rule?.plugin ?? PLUGIN_NAME, file: a.rule?.file };
    // A recursive content search through the shell cannot skip denied files the way the Grep tool does:
    // with a Read deny rule in force it is never auto-approved as "read-only".
    const r = recursiveReadPastDeny(rs, f, readDeniedElsewhere);
    if (r) return ask(r);
    // before the tool's own "read-only inside cwd" check: a search that follows links reads where they lead
    for (const s of f.bash!.segments) {
      const link = s.inner ? undefined : linkFollowedOut(f, s, workDirs(rs, call.cwd));
      if (link) return ask({ behavior: "ask", reason: `\`${s.text}\` follows symbolic links, and ${link} leads outside the working directories`, rule: "symlink out", plugin: PLUGIN_NAME, explicit: true });
    }
    return undefined;
  }
  const allowRule = firstRule(rs, "allow", f, false);
  if (allowRule) return allowRule;
  if (mode === "acceptEdits" && EDIT_TOOLS.has(f.tool) && f.paths?.length && f.paths.every((p) => insideDirs(p, workDirs(rs, call.cwd)))) {
    return { behavior: "allow", reason: "acceptEdits mode allows edits inside the working directories", rule: "mode: acceptEdits", plugin: PLUGIN_NAME };
  }
  return undefined;
}

/** A recursive search that follows symbolic links (`grep -R`, `rg -L`, `find -L`): a link in the tree leading out is read. */
function linkFollowedOut(f: CallFacts, s: Segment, dirs: string[]): string | undefined {
  const [cmd, ...rest] = s.words;
  const name = (cmd ?? "").split("/").pop()!;
  const follows =
    (/^[ef]?grep$/.test(name) && rest.some((w) => /^-[a-zA-Z]*R/.test(w) || w === "--dereference-recursive")) ||
    ((name === "rg" || name === "ag") && rest.some((w) => w === "-L" || w === "--follow" || (name === "ag" && w === "-f"))) ||
    ((name === "find" || name === "du" || name === "ls" || name === "tree") && rest.some((w) => w === "-L" || w === "-follow" || (name !== "find" && /^-[a-zA-Z]*L/.test(w))));
  if (!follows) return undefined;
  const roots = (f.segReads!.get(s) ?? []).map((p) => p.abs);
  for (const r of roots.length ? roots : [s.dir]) {
    const hit = linkOutOf(r, dirs);
    if (hit) return hit;
  }
  return undefined;
}

/** Shell content searches that descend into directories (grep -r, rg, ag, ack, git grep). */
function recursiveSearch(s: Segment): boolean {
  const [cmd, ...rest] = s.words;
  if (!cmd) return false;
  const name = cmd.split("/").pop()!;
  if (name === "rg" || name === "ag" || name === "ack" || name === "ack-grep") return true;
  if (name === "git") return rest.find((w) => !w.startsWith("-")) === "grep";
  if (name === "grep" || name === "egrep" || name === "fgrep" || name === "zgrep")
    return rest.some((w) => /^-[a-zA-Z]*[rR]/.test(w) || w === "--recursive" || w === "--dereference-recursive" || /^--directories=recurse$/.test(w) || w === "recurse");
  return false;
}

function recursiveReadPastDeny(rs: RuleSet, f: CallFacts, readDeniedElsewhere?: () => boolean): Decision | undefined {
  const seg = f.bash?.segments.find((s) => recursiveSearch(s));
  if (!seg) return undefined;
  const e = rs.deny.find((x) => x.rule.kind === "path" && x.rule.family === "read" && (!x.rule.onlyTool || BASH_TOOLS.has(x.rule.onlyTool)));
  if (!e) {
    if (!readDeniedElsewhere?.()) return undefined;
    return {
      behavior: "ask",
      reason: `\`${seg.text}\` searches directories recursively and would read files a Read deny rule of another plugin covers (the Grep tool names it and skips them) — approve this command explicitly`,
      plugin: PLUGIN_NAME,
      explicit: true,
    };
  }
  return {
    behavior: "ask",
    reason: `\`${seg.text}\` searches directories recursively and would read files that deny rule "${e.source}" covers (${where(e)}); the Grep tool skips them — or approve this command explicitly`,
    rule: e.source,
    plugin: e.plugin,
    file: e.file,
    explicit: true,
  };
}

export function toolDecision(rs: RuleSet, call: CallView, f: CallFacts): Decision | undefined {
  const tool = call.tool;
  const c = tool?.checkPermissions?.(call.input as never, { cwd: call.cwd, mode: call.mode });
  if (c && c.behavior !== "passthrough") {
    const d: Decision = { behavior: c.behavior, reason: c.reason ?? `${call.toolName}'s own permission check says ${c.behavior}`, rule: `${call.toolName}.checkPermissions`, plugin: tool?.plugin };
    if (d.behavior === "ask" && call.mode === "dontAsk") return { ...d, behavior: "deny", reason: `${d.reason}; dontAsk mode denies instead of asking` };
    return d;
  }
  const dirs = workDirs(rs, call.cwd);
  if (approvable(f)) {
    const a = bashApproval(rs, f, call.mode, dirs, true);
    return a.ok ? { behavior: "allow", reason: a.reason, rule: a.rule?.source ?? a.label ?? "read-only command", plugin: a.rule?.plugin ?? PLUGIN_NAME, file: a.rule?.file } : undefined;
  }
  if (tool && tool.origin !== "mcp" && flag(tool.isReadOnly, call.input as never, false)) {
    const ps = f.paths ?? [];
    if (ps.every((p) => insideDirs(p, dirs) || readAllowed(rs, f, p))) {
      return { behavior: "allow", reason: ps.length ? "read-only tool inside the working directories" : "read-only tool", rule: "read-only", plugin: PLUGIN_NAME };
    }
  }
  return undefined;
}

export function fallbackDecision(rs: RuleSet, call: CallView, f: CallFacts): Decision | undefined {
  let why = "no allow rule matches and the tool is not read-only inside the working directories";
  if (approvable(f)) why = bashApproval(rs, f, call.mode, workDirs(rs, call.cwd), true).reason;
  if (call.mode === "dontAsk") return { behavior: "deny", reason: `dontAsk mode denies calls that are not pre-approved: ${why}`, rule: "mode: dontAsk", plugin: PLUGIN_NAME, explicit: true };
  return { behavior: "ask", reason: why, plugin: PLUGIN_NAME };
}

function readAllowed(rs: RuleSet, f: CallFacts, p: ResolvedPath): boolean {
  return rs.allow.some((e) => e.rule.kind === "path" && !e.rule.onlyTool && ruleHit(e.rule, { ...f, tool: "Read", bash: undefined, paths: [p] }, "allow", e.rulesRoot));
}

function writeAllowed(rs: RuleSet, f: CallFacts, p: ResolvedPath, mode: string, dirs: string[]): boolean {
  if (protectedReason(p)) return false;
  if (mode === "acceptEdits" && insideDirs(p, dirs)) return true;
  return rs.allow.some((e) => e.rule.kind === "path" && e.rule.family === "edit" && !e.rule.onlyTool && ruleHit(e.rule, { ...f, tool: "Edit", bash: undefined, paths: [p] }, "allow", e.rulesRoot));
}

/**
 * Allow needs every segment: each must be approved by an allow rule, or (with `readOnly`) be a
 * recognised read-only command whose paths are inside the working directories, or (acceptEdits)
 * a mkdir/touch/mv/cp inside them. Output redirections need an Edit allow (or acceptEdits).
 */
export function bashApproval(rs: RuleSet, f: CallFacts, mode: string, dirs: string[], readOnly: boolean): { ok: boolean; reason: string; rule?: RuleEntry; label?: string } {
  const b = f.bash!;
  if (!b.ok) {
    const whole = b.command.trim().replace(/\s+/g, " ");
    const exact = rs.allow.find((e) => e.rule.kind === "bash" && e.rule.bash!.exact && e.rule.bash!.re.test(whole));
    if (exact) return { ok: true, reason: `allow rule "${exact.source}" names this exact command (${where(exact)})`, rule: exact };
    return { ok: false, reason: `${b.error ?? "the command cannot be parsed"}; a prefix rule never approves it` };
  }
  const outer = b.segments.filter((s) => !s.inner && (s.words.length || s.redirectWrites.length));
  if (!outer.length) return { ok: false, reason: "empty command" };
  const acc: Approved = { used: [], edits: [], readOnly: 0 };
  for (const s of outer) {
    const why = segmentApproval(rs, f, s, mode, dirs, readOnly, acc);
    if (why) return { ok: false, reason: why };
  }
  const names = [...new Set(acc.used.map((e) => `"${e.source}"`))];
  if (acc.edits.length) {
    // acceptEdits approved a mkdir/touch/mv/cp/sed -i: say so (it is no read-only command)
    const others = [names.length ? `allowed (${names.join(", ")})` : "", acc.readOnly ? "a read-only command" : ""].filter(Boolean).join(", ");
    const edits = `a command that creates or edits files (${acc.edits.map((t) => `\`${t}\``).join(", ")}) inside the working directories, which acceptEdits mode allows`;
    return { ok: true, reason: `every part of the command is ${others ? `${others} or ` : ""}${edits}`, rule: acc.used[0], label: "mode: acceptEdits" };
  }
  return { ok: true, reason: names.length ? `every part of the command is allowed (${names.join(", ")}${readOnly ? " and read-only commands" : ""})` : "every part of the command is a read-only command inside the working directories", rule: acc.used[0] };
}

/** What approved the segments: allow rules, edits acceptEdits approved (their text), read-only commands. */
type Approved = { used: RuleEntry[]; edits: string[]; readOnly: number };

function segmentApproval(rs: RuleSet, f: CallFacts, s: Segment, mode: string, dirs: string[], readOnly: boolean, acc: Approved): string | undefined {
  const redirOk = () => {
    if (s.redirectWrites.some((r) => r.dynamic)) return `\`${s.text}\` redirects output to a path computed at run time`;
    const ws = f.segRedirects!.get(s) ?? [];
    const bad = ws.find((p) => !writeAllowed(rs, f, p, mode, dirs));
    if (bad) return `\`${s.text}\` writes ${bad.abs}, which no Edit allow rule covers`;
    if (ws.length && mode === "acceptEdits") acc.edits.push(`${s.text} > ${s.redirectWrites.map((r) => r.path).join(" ")}`);
    return undefined;
  };
  if (!s.words.length) return redirOk();
  const rule = (allowMayHit(rs.allow, s) ? rs.allow.find((e) => e.rule.kind === "bash" && segmentAllowedBy(e.rule, s)) : undefined) ?? rs.allow.find((e) => e.rule.kind === "tool" && (e.rule.tool === "Bash" || e.rule.tool === f.tool));
  if (rule) {
    acc.used.push(rule);
    return redirOk();
  }
  if (s.unallowable) return `\`${s.text}\` needs approval: ${s.unallowable}`;
  const hasDynamic = [...s.reads, ...s.writes].some((r) => r.dynamic);
  const inside = (p: ResolvedPath) => insideDirs(p, dirs);
  if (readOnly && s.readOnly && !hasDynamic) {
    const dirOk = insideDirs({ abs: s.dir, real: s.dir }, dirs);
    const outside = (f.segReads!.get(s) ?? []).find((p) => !inside(p) && !readAllowed(rs, f, p));
    if (dirOk && !outside) {
      if (!(f.segRedirects!.get(s) ?? []).length) acc.readOnly++;
      return redirOk();
    }
    if (outside) return `\`${s.text}\` reads ${outside.abs}, outside the working directories`;
    return `\`${s.text}\` runs in ${s.dir}, outside the working directories`;
  }
  if (mode === "acceptEdits" && s.editOp && !hasDynamic) {
    const bad = [...(f.segReads!.get(s) ?? []), ...(f.segWrites!.get(s) ?? [])].find((p) => !inside(p) || protectedReason(p));
    if (!bad) {
      acc.edits.push(s.text);
      return redirOk();
    }
    return `\`${s.text}\` touches ${bad.abs}, outside the working directories or protected`;
  }
  return `\`${s.text}\` is not allowed by any rule`;
}

/**
 * The whole permission answer for one call, outside a host (tests, tooling): deny, then the
 * permission stages in order. Mirrors what the executor sees from this plugin's taps.
 */
export function evaluate(rs: RuleSet, call: CallView): Decision {
  const f = callFacts(call.toolName, call.input, call.cwd, call.shellCwd ?? call.cwd);
  return denyDecision(rs, call, f) ?? rulesDecision(rs, call, f) ?? toolDecision(rs, call, f) ?? fallbackDecision(rs, call, f)!;
}
