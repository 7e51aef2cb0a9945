/**
 * Field-by-field comparison of a Claude Code recording with toolhost's replay of the same case, and the allow-list
 * (differences.json) that is the only source of accepted differences.
 *
 * A difference is {case, path, cc, toolhost}; `path` is a list of segments, written joined with "." (tools are keyed
 * by name, steps by `tool_use_id-Tool` (toolu_01-Read), hook invocations by `label@toolu_01-Read` (or `label#n`, the n-th run of that
 * recording hook, for events without a call), files by their relative path). An allow-list entry covers a difference when one of its `cases` globs matches the case id
 * and its `path` pattern matches a prefix of the difference's path (`*` = one segment or part of one, `**` = any
 * number of segments, `[a.b]` = one literal segment holding dots; `case-glob:pattern` limits one pattern to its own
 * cases). Every difference must be covered by exactly one entry, and every entry must cover at least
 * one difference: a fixed gap fails the test until its entry is removed, so the list can only shrink.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const DIFFERENCES_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "differences.json");

export interface Difference {
  case: string;
  path: string[];
  cc: unknown;
  toolhost: unknown;
}

export interface AllowEntry {
  /** Case id globs ("*" for all). */
  cases: string[];
  /** Path pattern(s), segments joined with ".". */
  path: string | string[];
  /** "intended": toolhost differs on purpose. "gap": not built yet (issue 15 item `item`). */
  kind: "intended" | "gap";
  item?: number;
  /** What differs, in a few words (README table). */
  what: string;
  /** Why it differs (intended) or what is missing (gap). */
  reason: string;
}

export interface Observation {
  /** What SessionStart / UserPromptSubmit hooks added for the model, before the first call. */
  sessionContext?: string[];
  tools?: { name: string; description?: string; input_schema?: unknown; defer_loading?: boolean }[];
  steps: { id: string; name: string; input: unknown; decision: string; source?: string; result: unknown }[];
  hooks: { label: string; event: string | null; stdin: unknown; env: Record<string, string> }[];
  files: Record<string, string | null>;
}

export function loadAllowList(file = DIFFERENCES_FILE): AllowEntry[] {
  const j = JSON.parse(fs.readFileSync(file, "utf8")) as { differences: AllowEntry[] };
  j.differences.forEach((e, i) => {
    for (const k of ["cases", "path", "kind", "what", "reason"] as const) if (e[k] === undefined) throw new Error(`${file}: /differences/${i} lacks "${k}"`);
    if (e.kind === "gap" && !e.item) throw new Error(`${file}: /differences/${i} is a gap without its issue 15 item`);
  });
  return j.differences;
}

/** Key the parts of an observation so the diff aligns them by identity, not by position. */
function keyed(o: Observation): Record<string, unknown> {
  const seen = new Map<string, number>();
  const hooks: Record<string, unknown> = {};
  for (const h of o.hooks) {
    const st = (h.stdin ?? {}) as { tool_use_id?: string; tool_name?: string; tool_calls?: { tool_use_id?: string; tool_name?: string }[] };
    const first = st.tool_use_id ? st : st.tool_calls?.[0];
    const call = first?.tool_use_id ? `${first.tool_use_id}-${first.tool_name}` : undefined;
    const n = seen.get(h.label) ?? 0;
    seen.set(h.label, n + 1);
    hooks[call ? `${h.label}@${call}` : `${h.label}#${n}`] = { event: h.event, stdin: h.stdin, env: h.env };
  }
  return {
    ...(o.tools ? { tools: Object.fromEntries(o.tools.map((t) => [t.name, t])) } : {}),
    sessionContext: o.sessionContext ?? [],
    steps: Object.fromEntries(o.steps.map((s) => [`${s.id}-${s.name}`, s])),
    hooks,
    files: o.files,
  };
}

function diffValue(c: string, p: string[], a: unknown, b: unknown, out: Difference[]): void {
  const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object";
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) diffValue(c, [...p, k], a[k], b[k], out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ case: c, path: p, cc: a, toolhost: b });
}

/** How many leaf fields the two observations hold between them (the compared points; a missing subtree counts once). */
export function comparedPoints(cc: Observation, th: Observation): number {
  const count = (a: unknown, b: unknown): number => {
    const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object";
    if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      let n = 0;
      for (const k of keys) n += count(a[k], b[k]);
      return n;
    }
    return 1;
  };
  return count(keyed(cc), keyed(th));
}

export function diffObservations(caseId: string, cc: Observation, th: Observation): Difference[] {
  const out: Difference[] = [];
  diffValue(caseId, [], keyed(cc), keyed(th), out);
  return out;
}

const globs = new Map<string, RegExp>();
function globRe(g: string): RegExp {
  let re = globs.get(g);
  if (!re) globs.set(g, (re = new RegExp(`^${g.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`)));
  return re;
}

/** Does `pattern` (segments) match a prefix of `p`? */
function prefixMatch(pattern: string[], p: string[]): boolean {
  if (!pattern.length) return true;
  const [head, ...rest] = pattern;
  if (head === "**") return p.some((_, i) => prefixMatch(rest, p.slice(i))) || prefixMatch(rest, []);
  if (!p.length) return false;
  return globRe(head!).test(p[0]!) && prefixMatch(rest, p.slice(1));
}

/** Pattern segments: split on ".", except inside [brackets] (a literal segment with dots, e.g. files.[ws.txt]). */
function segments(p: string): string[] {
  return [...p.matchAll(/\[([^\]]*)\]|[^.]+/g)].map((m) => m[1] ?? m[0]);
}

/** A path may name its own cases: "case-glob:pattern" applies to that case only, whatever `cases` says. */
export function covers(e: AllowEntry, d: Difference): boolean {
  const caseOk = e.cases.some((g) => globRe(g).test(d.case));
  return [e.path].flat().some((p) => {
    const i = p.indexOf(":");
    if (i > 0) return globRe(p.slice(0, i)).test(d.case) && prefixMatch(segments(p.slice(i + 1)), d.path);
    return caseOk && prefixMatch(segments(p), d.path);
  });
}

export interface Verdict {
  /** Differences no entry covers. */
  unlisted: Difference[];
  /** Differences two or more entries cover (each difference is listed once). */
  doubly: { difference: Difference; entries: number[] }[];
  /** Entries that covered nothing: the difference is gone, remove the entry. */
  unused: number[];
  /** How many differences each entry covered. */
  used: number[];
}

export function judge(entries: AllowEntry[], diffs: Difference[]): Verdict {
  const used = entries.map(() => 0);
  const unlisted: Difference[] = [];
  const doubly: Verdict["doubly"] = [];
  for (const d of diffs) {
    const hit = entries.flatMap((e, i) => (covers(e, d) ? [i] : []));
    if (!hit.length) unlisted.push(d);
    if (hit.length > 1) doubly.push({ difference: d, entries: hit });
    for (const i of hit) used[i]!++;
  }
  return { unlisted, doubly, unused: used.flatMap((n, i) => (n ? [] : [i])), used };
}

const short = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v).slice(0, 300));

/** The failure text: what to add, what is listed twice, what to remove. */
export function explainVerdict(entries: AllowEntry[], v: Verdict): string {
  const lines: string[] = [];
  for (const d of v.unlisted) lines.push(`UNLISTED ${d.case} ${d.path.join(".")}\n    Claude Code: ${short(d.cc)}\n    toolhost:    ${short(d.toolhost)}`);
  for (const { difference: d, entries: es } of v.doubly) lines.push(`LISTED TWICE ${d.case} ${d.path.join(".")} by /differences/${es.join(", /differences/")}`);
  for (const i of v.unused) lines.push(`GONE: remove /differences/${i} from differences.json (${[entries[i]!.path].flat().join(", ")}: ${entries[i]!.what}) — toolhost now matches Claude Code there`);
  return lines.join("\n");
}
