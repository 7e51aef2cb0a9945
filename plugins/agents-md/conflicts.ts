/**
 * Rules that would block what the same file tells the agent to do: a deny on a command it says to run, an
 * Edit deny on a path it says to write. Those are reported as conflicts (advice, with the line), not enforced.
 */
import { globSource } from "../../lib/rules/paths.ts";
import { conflictOf, toldCommands } from "./advice.ts";
import { isDirectory, looksLikePath, type Span } from "./text.ts";
import type { CompiledRule, State } from "./types.ts";

/** "Create reproduction scripts in `repros/`", "updating the version-keyed entry in `pnpm-workspace.yaml`": paths the file tells the agent to write. */
// (the imperative or a gerund: "A GitHub Action adds `.changeset/*.md`" tells the agent nothing)
const TOLD_EDIT = /\b(?:edit(?:ing)?|updat(?:e|ing)|modify(?:ing)?|chang(?:e|ing)|creat(?:e|ing)|add(?:ing)?|writ(?:e|ing)|put(?:ting)?|plac(?:e|ing)|stor(?:e|ing)|sav(?:e|ing)|append(?:ing)?|register(?:ing)?|bump(?:ing)?)\b[^`.;:]{0,40}$/i;
export function toldEdits(s: string, sp: Span[], told: Map<string, number>, line: number): void {
  for (const x of sp) {
    if (!looksLikePath(x.text) || !/[./*]/.test(x.text) || told.has(x.text)) continue;
    const before = s.slice(Math.max(0, x.at - 60), x.at);
    if (TOLD_EDIT.test(before) && !/\b(?:not|never|no)\b[^`]*$/i.test(before)) told.set(x.text, line);
  }
}

/**
 * The told edit an Edit rule would block, if any. Pure (the rule's own glob against the told path, as the
 * permissions matcher reads it: a pattern without a slash matches at any depth): no file system calls at
 * compile time.
 */
function editConflict(rule: string, told: Map<string, number>): { path: string; line: number } | undefined {
  if (!rule.startsWith("Edit(") || !rule.endsWith(")")) return undefined;
  const spec = rule.slice(5, -1).replace(/^\.\//, "");
  const trimmed = spec.replace(/\/+$/, "");
  const anchored = trimmed.includes("/") && !/^[^/]+\/\*\*$/.test(spec);
  const re = new RegExp(`^${anchored ? "" : "(?:.*/)?"}${globSource(trimmed)}$`);
  for (const [p, line] of told) {
    const probe = (isDirectory(p) ? `${p.replace(/\/+$/, "")}/new-file` : p).replace(/^\.\//, "");
    if (re.test(probe)) return { path: p, line };
  }
  return undefined;
}

/**
 * A deny rule that would block a command the file tells the agent to run, or a file it tells the agent to
 * write, is reported, not enforced. "Do not delete files from `repros/`" next to "create scripts in
 * `repros/`" bans the deletion only: `Bash(rm *repros/*)`.
 */
export function resolveConflicts(st: State): void {
  if (!st.prose.size) return;
  // (the sentences' commands come after the fences' lines, as if read in order: the first line that says it is cited)
  // only what a rule could conflict with: commands that contain a denied program's name, paths when there is an Edit rule
  const progs: string[] = [];
  let edits = false;
  for (const r of st.prose) {
    if (r.rule.startsWith("Edit(")) edits = true;
    else if (r.behavior === "deny" && r.rule.startsWith("Bash(")) progs.push(r.rule.slice(5).split(/[\s)]/)[0]!);
  }
  const anyProg = progs.includes("*");
  for (const x of st.pending) {
    if (progs.length && (anyProg || progs.some((p) => x.s.includes(p)))) toldCommands(x.s, st.told, x.line, x.banLike);
    if (edits && !x.banLike) toldEdits(x.s, x.sp, st.toldEdits, x.line);
  }
  st.pending = [];
  if (!st.told.size && !st.toldEdits.size) return;
  const keep: CompiledRule[] = [];
  const facts = new Map();
  const words = new Map<string, string[]>();
  for (const r of st.out.rules) {
    const prose = st.prose.has(r);
    const e = prose && st.toldEdits.size ? editConflict(r.rule, st.toldEdits) : undefined;
    const del = e && st.deletes.get(r);
    if (del) {
      const p = del.replace(/^\.\//, "");
      keep.push({ ...r, rule: `Bash(rm *${isDirectory(p) ? `${p.replace(/\/+$/, "")}/` : p}*)`, hint: `deleting it is what the line bans; line ${e.line} tells the agent to write there` });
      continue;
    }
    // (an ask blocks nothing: the user may still say yes)
    const c = prose && r.behavior === "deny" ? (conflictOf(r.rule, st.told, st.scope, facts, words) ?? (e && { command: `edit ${e.path}`, line: e.line })) : undefined;
    if (!c) keep.push(r);
    else st.out.unenforced.push({ file: r.file, line: r.line, text: r.text, why: `${r.behavior} ${r.rule} would block \`${c.command}\`, which line ${c.line} tells the agent to ${c.command.startsWith("edit ") ? "do" : "run"}`, kind: "conflict" });
  }
  st.out.rules = keep;
}
