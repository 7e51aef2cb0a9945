/**
 * The reusable matcher: one permission rule against one tool call. Other plugins use it too
 * (the command-hooks plugin's per-handler `if`).
 *
 *   parseRule(text)                         → ParsedRule (throws with a clear message on bad syntax)
 *   matchesRule(rule, {toolName, input}, {cwd, rulesRoot?, behavior?}) → boolean
 *
 * `behavior` picks the compound-command semantics: "allow" needs every segment of a Bash command
 * to match and symlinks to match on both ends; "deny"/"ask" (the default) need any segment and
 * either end, and also see Bash file readers/writers and edits through Read rules.
 */
import path from "node:path";
import { globSync } from "tinyglobby";
import { analyzeBash, flagFormMatches, type BashFacts, type PathRef, type Segment } from "./bash.ts";
import { withRealpathMemo } from "../fs-path.ts";
import { compilePathPattern, expandHome, isInside, pathHits, resolvePath, type Behavior, type PathMatcher, type ResolvedPath } from "./paths.ts";
import { BASH_TOOLS, EDIT_TOOLS, READ_TOOLS, STDIN_TOOLS, canonicalTool, parseRule as parse, toolMatches, type ParsedRule } from "./rule.ts";

export { formatRule, isBlanket, lintRule, toolMatches, canonicalTool, KNOWN_TOOLS, type ParsedRule } from "./rule.ts";
export type { Behavior } from "./paths.ts";
export { analyzeBash, type BashFacts, type Segment } from "./bash.ts";

export interface MatchCall {
  toolName: string;
  input: unknown;
}
export interface MatchContext {
  cwd: string;
  /** Anchor of `/path` rules (the rules' source); defaults to cwd. */
  rulesRoot?: string;
  behavior?: Behavior;
}

const parsedCache = new Map<string, ParsedRule>();

/** Parse a rule (cached by text). Throws an Error with a clear message on bad syntax. */
export function parseRule(text: string): ParsedRule {
  const hit = parsedCache.get(text);
  if (hit) return hit;
  const r = parse(text);
  if (parsedCache.size > 5000) parsedCache.clear();
  parsedCache.set(text, r);
  return r;
}

/** Everything about a call that rules look at, computed once per call. */
export interface CallFacts {
  tool: string;
  input: Record<string, unknown>;
  cwd: string;
  bash?: BashFacts;
  /** File tools: the path(s) the call touches. */
  paths?: ResolvedPath[];
  /** Bash: resolved reads and writes (redirections included), per segment. */
  segReads?: Map<Segment, ResolvedPath[]>;
  segWrites?: Map<Segment, ResolvedPath[]>;
  /** Bash: resolved output-redirection targets, per segment (also part of segWrites). */
  segRedirects?: Map<Segment, ResolvedPath[]>;
  /** Grep `glob` / Glob `pattern` as a path, for deny/ask only. */
  searchGlobs?: ResolvedPath[];
  host?: string;
}

const PATH_FIELDS = ["file_path", "notebook_path", "filePath", "path"];

/**
 * `cwd` anchors `./` rules (the session's working directory); `shellCwd` is where a shell command really
 * runs (a `cd` carried over from an earlier call), so the command's relative paths resolve there.
 */
export function callFacts(toolName: string, input: unknown, cwd: string, shellCwd = cwd): CallFacts {
  const tool = canonicalTool(toolName);
  const inp = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const f: CallFacts = { tool, input: inp, cwd };
  const command = tool === "exec_command" ? inp.cmd : STDIN_TOOLS.has(tool) ? inp.chars : inp.command;
  if ((BASH_TOOLS.has(tool) || STDIN_TOOLS.has(tool) || tool === "PowerShell") && typeof command === "string") {
    const cwd = tool === "exec_command" && typeof inp.workdir === "string" && inp.workdir ? path.resolve(shellCwd, inp.workdir) : shellCwd;
    const b = (f.bash = analyzeBash(command, cwd));
    const reads = (f.segReads = new Map());
    const writes = (f.segWrites = new Map());
    const redirs = (f.segRedirects = new Map());
    withRealpathMemo(() => {
      for (const s of b.segments) {
        const redirects = s.redirectWrites.length ? s.redirectWrites.flatMap((r) => resolveRef(r, cwd)) : [];
        reads.set(s, s.reads.length ? s.reads.flatMap((r) => resolveRef(r, cwd)) : []);
        writes.set(s, s.writes.length ? [...s.writes.flatMap((r) => resolveRef(r, cwd)), ...redirects] : redirects);
        redirs.set(s, redirects);
      }
    });
  }
  if (READ_TOOLS.has(tool) || EDIT_TOOLS.has(tool)) {
    const ps: ResolvedPath[] = [];
    for (const k of PATH_FIELDS) if (typeof inp[k] === "string" && inp[k]) ps.push(resolvePath(inp[k] as string, cwd));
    if (!ps.length && (tool === "Grep" || tool === "Glob" || tool === "LS")) ps.push(resolvePath(".", cwd));
    f.paths = ps;
    // Grep's `glob` / Glob's `pattern` narrow the search to files a deny rule may name (`glob: ".env"`).
    const g = tool === "Grep" ? inp.glob : tool === "Glob" ? inp.pattern : undefined;
    if (typeof g === "string" && g && !g.startsWith("!")) {
      const abs = path.resolve(ps[0]?.abs ?? cwd, g);
      f.searchGlobs = [{ abs, real: abs }];
    }
  }
  if (tool === "WebFetch" && typeof inp.url === "string") f.host = hostOf(inp.url);
  return f;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    const m = /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(url) ?? /^([^/:?#\s]+)/.exec(url);
    return m?.[1]?.toLowerCase().replace(/\.$/, "");
  }
}

/** A Bash path operand, resolved (globs expanded against the filesystem, plus the literal). */
function resolveRef(r: PathRef, cwd: string): ResolvedPath[] {
  if (r.dynamic) return [];
  const out = [resolvePath(r.path, r.base)];
  if (r.base !== cwd && !path.isAbsolute(r.path)) out.push(resolvePath(r.path, cwd));
  // Expand globs the way the shell will (dotfiles included, to be safe), but bounded: a recursive
  // pattern is only walked inside the working directory, never through node_modules or .git.
  const recursive = r.path.includes("**");
  if (r.glob && (!recursive || isInside(path.resolve(r.base, expandHome(r.path.slice(0, r.path.indexOf("**")))), cwd))) {
    try {
      const hits = globSync(expandHome(r.path), { cwd: r.base, dot: true, absolute: true, onlyFiles: false, expandDirectories: false, deep: recursive ? 8 : undefined, ignore: recursive ? ["**/node_modules/**", "**/.git/**"] : undefined });
      for (const h of hits.slice(0, 500)) out.push(resolvePath(h, r.base));
    } catch {
      /* an unreadable directory: the literal stays */
    }
  }
  return out;
}

export function pathMatcher(r: ParsedRule, cwd: string, root: string, behavior: Behavior): PathMatcher {
  const key = `${behavior}\0${cwd}\0${root}`;
  let m = r.pathCache!.get(key);
  if (!m) {
    m = compilePathPattern(r.specifier!, { cwd, root, behavior });
    if (r.pathCache!.size > 64) r.pathCache!.clear();
    r.pathCache!.set(key, m);
  }
  return m;
}

/** Deny/ask: does this Bash rule hit a segment (any text variant, or the flag-set form)? */
export function segmentHits(r: ParsedRule, s: Segment): boolean {
  const b = r.bash!;
  for (const t of s.denyTexts) if (b.re.test(t)) return true;
  return !!b.flagForm && flagFormMatches(b.flagForm, s.words);
}

/** Allow: may this Bash rule approve the segment? Prefix rules never approve unallowable segments. */
export function segmentAllowedBy(r: ParsedRule, s: Segment): boolean {
  const b = r.bash!;
  if (s.unallowable && !b.exact) return false;
  return b.re.test(s.text) || b.re.test(s.rawText);
}

/** A deny/ask hit on a word list that follows an unknown program (`docker rm x`). */
export function suspectHit(r: ParsedRule, s: Segment): string | undefined {
  if (r.kind !== "bash") return undefined;
  for (const t of s.suspects) if (r.bash!.re.test(t) || (r.bash!.flagForm && flagFormMatches(r.bash!.flagForm, t.split(" ")))) return t;
  return undefined;
}

export interface Hit {
  /** What matched: a segment's text, a path, a host. */
  what?: string;
  /** The Bash part a path came from. */
  via?: string;
}

/**
 * The core test behind matchesRule, on precomputed facts. Returns a Hit (with what matched) or
 * undefined. Bash allow semantics here are per rule: every segment must match this one rule.
 */
export function ruleHit(r: ParsedRule, f: CallFacts, behavior: Behavior, root: string): Hit | undefined {
  const tool = f.tool;
  switch (r.kind) {
    case "tool":
      if (toolMatches(r, tool)) return {};
      return behavior !== "allow" ? familyMember(r, tool) ?? shellEquivalent(r, f) : undefined;
    case "bash": {
      // what write_stdin types into a running shell is checked by deny/ask Bash rules (never allowed by them)
      if (!(toolMatches(r, tool) || (behavior !== "allow" && STDIN_TOOLS.has(tool) && r.tool !== "PowerShell")) || !f.bash) return undefined;
      const segs = f.bash.segments;
      if (behavior === "allow") {
        const outer = segs.filter((s) => !s.inner && s.words.length);
        if (!f.bash.ok || !outer.length) return r.bash!.exact && r.bash!.re.test(f.bash.command.trim().replace(/\s+/g, " ")) ? { what: f.bash.command } : undefined;
        return outer.every((s) => segmentAllowedBy(r, s)) ? { what: f.bash.command } : undefined;
      }
      const s = segs.find((x) => segmentHits(r, x));
      return s ? { what: s.text } : undefined;
    }
    case "path": {
      if (!f.paths && !f.bash) return undefined;
      let matcher: PathMatcher | undefined;
      const m = () => (matcher ??= pathMatcher(r, f.cwd, root, behavior));
      const viaFamily =
        toolMatches(r, tool) ||
        // A Read deny/ask also guards edits; an Edit allow also grants reads.
        (!r.onlyTool && behavior !== "allow" && r.family === "read" && EDIT_TOOLS.has(tool)) ||
        (!r.onlyTool && behavior === "allow" && r.family === "edit" && READ_TOOLS.has(tool));
      if (viaFamily && f.paths) {
        const p = f.paths.find((x) => pathHits(m(), x, behavior)) ?? (behavior !== "allow" ? f.searchGlobs?.find((x) => m().test(x.abs, x.fold)) : undefined);
        return p ? { what: p.abs } : undefined;
      }
      if (f.bash && !r.onlyTool && behavior !== "allow") {
        for (const s of f.bash.segments) {
          const p = (r.family === "read" ? f.segReads!.get(s)?.find((x) => pathHits(m(), x, behavior)) : undefined) ?? f.segWrites!.get(s)?.find((x) => pathHits(m(), x, behavior));
          if (p) return { what: p.abs, via: s.text };
        }
      }
      return undefined;
    }
    case "domain":
      return tool === "WebFetch" && f.host !== undefined && r.domain!.test(f.host) ? { what: f.host } : undefined;
    case "param": {
      if (r.tool !== tool) return undefined;
      const v = f.input[r.param!.name];
      if (v === undefined || v === null || typeof v === "object") return undefined;
      return r.param!.any || r.param!.re.test(String(v)) ? { what: `${r.param!.name}:${String(v)}` } : undefined;
    }
    case "agent": {
      if (r.tool !== tool) return undefined;
      const t = f.input.subagent_type;
      return typeof t === "string" && r.glob!.test(t) ? { what: t } : undefined;
    }
    case "skill": {
      if (r.tool !== tool) return undefined;
      const name = f.input.skill ?? f.input.name ?? f.input.command;
      if (typeof name !== "string") return undefined;
      const text = typeof f.input.args === "string" && f.input.args ? `${name} ${f.input.args}` : name;
      return r.glob!.test(text) ? { what: text } : undefined;
    }
    case "generic": {
      if (r.tool !== tool) return undefined;
      const v = primaryValue(f.input);
      return v !== undefined && r.glob!.test(v) ? { what: v } : undefined;
    }
  }
}

/**
 * A bare `Read` deny or ask rule covers the whole read family (Grep, Glob, LSP, …) and a bare `Edit` the
 * edit family (Write, NotebookEdit, MultiEdit), as Claude Code's bare Read rule covers Grep and Glob: the
 * searching tools read the very files the rule keeps from the model. Allow rules stay per tool.
 */
export function coversFamily(r: ParsedRule, tool: string): boolean {
  return !r.toolRe && r.mcpServer === undefined && ((r.tool === "Read" && READ_TOOLS.has(tool)) || (r.tool === "Edit" && EDIT_TOOLS.has(tool)));
}
function familyMember(r: ParsedRule, tool: string): Hit | undefined {
  return coversFamily(r, tool) ? { what: `${tool} (the ${r.tool} family)` } : undefined;
}

/**
 * A bare `Read` / `Edit` deny or ask rule also covers the shell's equivalents: a Bash command that
 * reads a file (`cat README.md`) or writes one (`touch x`, `> f`).
 */
function shellEquivalent(r: ParsedRule, f: CallFacts): Hit | undefined {
  if (!f.bash || r.toolRe || r.mcpServer || (r.tool !== "Read" && r.tool !== "Edit")) return undefined;
  for (const s of f.bash.segments) {
    const ps = r.tool === "Read" ? s.reads : [...s.writes, ...s.redirectWrites];
    if (ps.length) return { what: ps[0]!.path, via: s.text };
  }
  return undefined;
}

const PRIMARY_ORDER = ["command", "file_path", "path", "notebook_path", "url", "query", "pattern", "prompt", "skill", "subagent_type", "name"];
function primaryValue(input: Record<string, unknown>): string | undefined {
  for (const k of PRIMARY_ORDER) if (typeof input[k] === "string") return input[k] as string;
  return undefined;
}

/**
 * Does `rule` match `call`? `ctx.behavior` defaults to "deny" semantics (any Bash segment, link or
 * target) — what a hook's `if` wants; pass "allow" for allow-list semantics.
 */
export function matchesRule(rule: string | ParsedRule, call: MatchCall, ctx: { cwd: string; rulesRoot?: string; behavior?: "allow" | "deny" | "ask" }): boolean {
  const r = typeof rule === "string" ? parseRule(rule) : rule;
  const cwd = path.resolve(ctx.cwd);
  const f = callFacts(call.toolName, call.input, cwd);
  return !!ruleHit(r, f, ctx.behavior ?? "deny", ctx.rulesRoot ? path.resolve(ctx.rulesRoot) : cwd);
}

/**
 * Claude Code's per-handler hook `if` (formats.md §3.3), for the command-hooks plugin: one rule, any
 * Bash subcommand; an unparseable command **fails open** (the hook runs); a pattern more specific than
 * the command name also runs when the command has `$()`, backticks or `$VAR`; single-segment
 * `dir/**` path patterns are anchored to cwd (2.1.214+). Only the tool's own family is matched.
 */
export function matchesHookIf(rule: string | ParsedRule, call: MatchCall, ctx: { cwd: string; rulesRoot?: string }): boolean {
  const r = typeof rule === "string" ? parseRule(rule) : rule;
  const cwd = path.resolve(ctx.cwd);
  const root = ctx.rulesRoot ? path.resolve(ctx.rulesRoot) : cwd;
  const f = callFacts(call.toolName, call.input, cwd);
  if (r.kind === "bash") {
    if (!toolMatches(r, f.tool) || !f.bash) return false;
    if (!f.bash.ok) return true;
    const specific = /\S\s+\S/.test((r.specifier ?? "").replace(/:\*$/, " *").replace(/\s*\*$/, ""));
    if (specific && /\$\(|`|\$[A-Za-z_{]/.test(f.bash.command)) return true;
    return !!ruleHit(r, f, "ask", root);
  }
  // A bare tool rule in a hook's `if` names that tool (and its shell equivalents), not the rest of its family.
  if (r.kind === "tool" && !toolMatches(r, f.tool) && !f.bash) return false;
  if (r.kind === "path") {
    if (!toolMatches(r, f.tool) || !f.paths) return false;
    const m = pathMatcher(r, f.cwd, root, "allow");
    return f.paths.some((p) => m.test(p.abs) || m.test(p.real));
  }
  return !!ruleHit(r, f, "ask", root);
}

/**
 * A read filter (core `build.readFilter`) from Read deny rules: each entry's parsed rule is compiled for
 * this call's cwd and anchored at its `root`; `applies` narrows an entry to some paths (a nested scope);
 * the first rule that matches names the reason. Chained after `prev` (another plugin's filter).
 */
export function readDenyFilter<E extends { parsed: ParsedRule; root: string }>(
  prev: ((abs: string) => string | undefined) | undefined,
  entries: readonly E[],
  cwd: string,
  reason: (e: E) => string,
  applies?: (e: E, abs: string) => boolean,
  fold?: boolean,
): ((abs: string) => string | undefined) | undefined {
  if (!entries.length) return prev;
  const ms = entries.map((e) => ({ e, m: pathMatcher(e.parsed, cwd, e.root, "deny") }));
  const mine = (abs: string): string | undefined => {
    for (const { e, m } of ms) if ((!applies || applies(e, abs)) && m.test(abs, fold)) return reason(e);
    return undefined;
  };
  return prev ? (abs: string) => prev(abs) ?? mine(abs) : mine;
}
