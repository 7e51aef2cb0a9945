/**
 * Critical paths: removing (or moving away, or recursively re-owning) the filesystem root, a top-level
 * directory (`/usr`, `/etc` …), the home directory, the working directory or one of its parents is never
 * auto-approved, in any mode — bypassPermissions included. Claude Code asks for these; toolhost also
 * looks past `sudo`/`doas`, `find … -delete` and `-exec rm`, wrappers and `bash -c` (their commands are
 * inner segments here), and `cd / && rm -rf *` (a segment's directory is where it runs).
 *
 * Operands are taken from the segment's words as the shell will see them: `~`, `~+`, `$HOME`, `${HOME}`,
 * `$PWD` are expanded; a glob whose directory is critical and whose last part matches everything there
 * (`*`, `.*`, `**`) counts as that directory. An operand we cannot expand statically is not critical here
 * (it is never auto-approved by a path rule anyway, only by bypassPermissions or a prefix allow rule).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Segment } from "./bash.ts";
import { realpathLoose } from "../fs-path.ts";

export interface CriticalHit {
  segment: Segment;
  /** The operand as written. */
  operand: string;
  /** The absolute path it names. */
  abs: string;
  /** What it is: "the filesystem root", "a top-level directory", "the home directory" … */
  what: string;
  /** The verb: "removes", "moves", "changes the ownership/mode of everything in". */
  verb: string;
}

const REMOVERS = new Set(["rm", "unlink", "shred", "srm", "rmdir", "trash", "trash-put", "gio"]);
const RECURSIVE_CHANGERS = new Set(["chmod", "chown", "chgrp", "setfacl", "chattr"]);
const FIND_NARROWING = /^-(i?name|i?path|i?wholename|i?regex|i?lname|newer\w*|[acm](time|min)|size|empty|user|group|perm|inum|links|samefile|uid|gid|used|context|fstype|nouser|nogroup|xtype)$/;
const FIND_DESTRUCTIVE = new Set(["rm", "rmdir", "unlink", "shred", "mv", "chmod", "chown", "chgrp"]);

/** The first removal (or move, or recursive mode/owner change) of a critical path among `segments`. */
export function criticalRemoval(segments: readonly Segment[], cwd: string): CriticalHit | undefined {
  let findDelete = false;
  for (const s of segments) {
    // the segment builder stands in `rm START` for a `find … -delete` (deny rules on rm see it): find itself decides here
    const synthetic = findDelete && s.inner && s.words.length === 2 && s.words[0] === "rm";
    findDelete = name(s.words[0]) === "find" && s.words.includes("-delete");
    if (synthetic) continue;
    const op = operandsOf(s);
    if (!op) continue;
    for (const o of op.operands) {
      const hit = criticalOperand(o, s.dir, cwd, op.globs === true, quoting(s.rawText, o));
      if (hit) return { segment: s, operand: o, abs: hit.abs, what: hit.what, verb: op.verb };
    }
  }
  return undefined;
}

function name(w: string | undefined): string {
  return (w ?? "").slice((w ?? "").lastIndexOf("/") + 1);
}

/** Which operands of this command are destroyed (and how), or undefined when it destroys nothing. */
function operandsOf(s: Segment): { operands: string[]; verb: string; globs?: boolean } | undefined {
  const [head, ...rest] = s.words;
  const cmd = name(head);
  if (!cmd) return undefined;
  if (REMOVERS.has(cmd)) {
    if (cmd === "gio" && rest[0] !== "trash" && rest[0] !== "remove") return undefined;
    return { operands: positional(cmd === "gio" ? rest.slice(1) : rest), verb: "removes", globs: true };
  }
  if (cmd === "find") return findOperands(rest);
  if (cmd === "mv") {
    const t = rest.findIndex((w) => w === "-t" || w.startsWith("--target-directory"));
    const ops = positional(rest.filter((_, k) => k !== t && !(t >= 0 && k === t + 1 && rest[t] === "-t")));
    return { operands: t >= 0 ? ops : ops.slice(0, -1), verb: "moves" };
  }
  if (RECURSIVE_CHANGERS.has(cmd) && rest.some((w) => w === "--recursive" || /^-[a-zA-Z]*R/.test(w))) {
    const ops = positional(rest);
    const ref = rest.some((w) => w.startsWith("--reference"));
    return { operands: ref ? ops : ops.slice(1), verb: `recursively changes (${cmd})` };
  }
  if (cmd === "rsync" && rest.some((w) => w.startsWith("--delete"))) {
    const ops = positional(rest);
    return { operands: ops.slice(-1), verb: "deletes files in (rsync --delete)", globs: true };
  }
  return undefined;
}

/** Operands after options (`--` ends options). */
function positional(words: string[]): string[] {
  const out: string[] = [];
  let opts = true;
  for (const w of words) {
    if (opts && w === "--") opts = false;
    else if (opts && w.startsWith("-") && w !== "-") continue;
    else out.push(w);
  }
  return out;
}

/** `find PATHS… EXPR`: the start paths, when the expression deletes (`-delete`, `-exec rm …`). */
function findOperands(rest: string[]): { operands: string[]; verb: string; globs?: boolean } | undefined {
  let k = 0;
  while (k < rest.length && /^-[HLP]$|^-D$|^-O\d$/.test(rest[k]!)) k += rest[k] === "-D" ? 2 : 1;
  const starts: string[] = [];
  while (k < rest.length && !/^[-(!,]/.test(rest[k]!)) starts.push(rest[k++]!);
  const expr = rest.slice(k);
  const deletes = expr.some((w, i) => w === "-delete" || (/^-(exec|execdir|ok|okdir)$/.test(w) && FIND_DESTRUCTIVE.has(name(expr[i + 1]))));
  // `find . -name '*.o' -delete` deletes what it selects; `-type f` alone (or `-name '*'`) selects everything
  const narrowed = expr.some((w, i) => FIND_NARROWING.test(w) && !(/name$|path$/.test(w) && /^\*+$/.test(expr[i + 1] ?? "")));
  if (!deletes || narrowed) return undefined;
  return { operands: starts.length ? starts : ["."], verb: "deletes everything in (find)", globs: true };
}

/** How an operand was quoted in the command's source text: `'…'` (nothing expands), `"…"` (only `$` expands). */
type Quoting = "single" | "double" | undefined;
function quoting(raw: string, op: string): Quoting {
  if (raw.includes(`'${op}'`)) return "single";
  if (raw.includes(`"${op}"`)) return "double";
  return undefined;
}

/** Expand what the shell would statically: `~`, `~+`, `$HOME`, `${HOME}`, `$PWD`; undefined when something else is dynamic. */
function expand(op: string, dir: string, q: Quoting): string | undefined {
  const home = process.env.HOME || os.homedir();
  let s = op;
  if (q === "single") return /[$`]/.test(s) ? undefined : s;
  if (!q && (s === "~" || s.startsWith("~/"))) s = home + s.slice(1);
  else if (!q && /^~[a-z_][a-z0-9_.-]*(\/|$)/i.test(s)) {
    // `~user`: that user's home directory (from the passwd database), else the shell leaves it as written
    const user = /^~([^/]+)/.exec(s)![1]!;
    const h = homeOf(user);
    if (h) s = h + s.slice(user.length + 1);
  }
  else if (!q && (s === "~+" || s.startsWith("~+/"))) s = dir + s.slice(2);
  s = s.replace(/\$\{HOME\}|\$HOME(?![A-Za-z0-9_])/g, home).replace(/\$\{PWD\}|\$PWD(?![A-Za-z0-9_])/g, dir);
  if (/[$`]/.test(s)) return undefined;
  return s;
}

/**
 * Is this operand (from a segment running in `dir`) a critical path? `globs`: a glob that takes everything
 * in a critical directory counts (for removal; `mv * sub/` inside the project is ordinary).
 */
export function criticalOperand(op: string, dir: string, cwd: string, globs = true, q?: Quoting): { abs: string; what: string } | undefined {
  const e = expand(op, dir, q);
  if (e === undefined || e === "") return undefined;
  let target = e;
  let all = "";
  // A glob: its static directory counts when the glob takes everything there (`*`, `.*`, `/usr/*`).
  const g = q ? -1 : e.search(/[*?[]/); // a quoted glob is a literal name
  if (g >= 0) {
    if (!globs) return undefined;
    const slash = e.lastIndexOf("/", g);
    const last = e.slice(slash + 1).replace(/\/+$/, "");
    if (last.includes("/") || !/^(\.?\*+|\.\[!\.\]\*|\{\*,\.\*\}|\*\.\*)$/.test(last)) return undefined;
    target = slash < 0 ? "." : e.slice(0, slash) || "/";
    all = "everything in ";
  }
  const abs = path.resolve(dir, target);
  const what = criticalKind(abs, cwd) ?? (/\/\.?$/.test(e) || g >= 0 ? criticalKind(realpathLoose(abs), cwd) : undefined);
  return what ? { abs, what: all + what } : undefined;
}

let passwd: Map<string, string> | undefined;
function homeOf(user: string): string | undefined {
  if (!passwd) {
    passwd = new Map();
    try {
      for (const line of fs.readFileSync("/etc/passwd", "utf8").split("\n")) {
        const f = line.split(":");
        if (f.length >= 6 && f[0]) passwd.set(f[0], f[5]!);
      }
    } catch {
      /* no passwd database (Windows): `~user` stays as written */
    }
    try {
      const me = os.userInfo();
      passwd.set(me.username, me.homedir);
    } catch {}
  }
  return passwd.get(user);
}

/** What makes an absolute path critical, or undefined. */
export function criticalKind(abs: string, cwd: string): string | undefined {
  if (abs === "/" || abs === path.parse(abs).root) return "the filesystem root";
  if (path.dirname(abs) === "/") return "a top-level directory";
  const homes = new Set([process.env.HOME, os.homedir()].filter((h): h is string => !!h).map((h) => path.resolve(h)));
  for (const h of [...homes]) homes.add(realpathLoose(h));
  if (homes.has(abs)) return "the home directory";
  const cwds = new Set([path.resolve(cwd), realpathLoose(path.resolve(cwd))]);
  if (cwds.has(abs)) return "the working directory";
  for (const c of cwds) if (c.startsWith(abs.endsWith("/") ? abs : abs + "/")) return "a parent of the working directory";
  for (const h of homes) if (h.startsWith(abs + "/")) return "a parent of the home directory";
  return undefined;
}
