/**
 * From a shell command line to the segments Bash rules are matched against.
 *
 * Each simple command (see shell.ts) becomes a Segment: wrappers (`timeout 5`, `nice -n 5`,
 * `env -i A=b`, bare `xargs` …) and leading `VAR=x` are stripped; commands that run other code
 * (`bash -c`, `eval`, `find -exec`, `xargs -0 rm`, `sudo`, `npx` …) also yield *inner* segments,
 * which only deny/ask rules look at; recognised readers and writers contribute the paths that
 * Read/Edit rules check. Allow needs every segment; deny/ask need any.
 */
import { analyzeShell, crudeSplit, type SimpleCommand } from "./shell.ts";
import type { PathRef, ShellWord } from "./words.ts";
import { DATA_HEADS, EXEC_THROUGH, editCommand, NULL_DEVICES, READERS, SAFE_ENV, WRAPPERS, fileArgs } from "./commands.ts";
import { lit, runsCode, type CodeRun } from "./segments.ts";
import { expandArg, expandBraces, staticValue, type ExpandEnv } from "./expand.ts";
import { readOnlyVerdict } from "./grammars/readonly.ts";
import { gitSplit } from "./grammars/programs.ts";

export { compileBashPattern, flagFormMatches, globToRegex, type BashPattern } from "./pattern.ts";
export { SAFE_ENV } from "./commands.ts";
export { LONG_FLAGS, type PathRef } from "./words.ts";
export { expandBraces } from "./expand.ts";

export interface Segment {
  /** Words after wrappers and assignments were stripped (values). */
  words: string[];
  /** What allow rules see: stripped words joined by single spaces; unsafe VAR=x prefixes kept. */
  text: string;
  /** Same, from the source text of the words (quotes kept). */
  rawText: string;
  /** Everything deny/ask rules are also checked against (with wrappers, without any env, basename of the command). */
  denyTexts: string[];
  /** Set when a prefix rule may never approve this segment (shell-in-shell, exec-through, parse trouble). */
  unallowable?: string;
  /** Recognised read-only command (auto-approved when its paths are inside the working directories). */
  readOnly: boolean;
  /** `mkdir touch mv cp`, a harmless `sed -i`: auto-approved in acceptEdits mode inside the working directories. */
  editOp: boolean;
  reads: PathRef[];
  writes: PathRef[];
  /** Output redirection targets (`>`, `>>`, `2>`, `&>`), /dev/null & co excluded. */
  redirectWrites: PathRef[];
  /** Derived from another segment (xargs/find -exec/bash -c/sudo body): deny/ask only. */
  inner?: boolean;
  /** Word lists after an unknown program that look like commands (`docker rm x` → `rm x`): a deny/ask hit here asks. */
  suspects: string[];
  /** Effective directory this segment runs in. */
  dir: string;
}

export interface BashFacts {
  ok: boolean;
  error?: string;
  segments: Segment[];
  command: string;
}

const MAX_LEN = 10_000;
/** Environment variables whose value programs run as a command. */
const COMMAND_VARS = new Set(["GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_PAGER", "GIT_SEQUENCE_EDITOR", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "PROMPT_COMMAND", "LESSOPEN", "SSH_ASKPASS", "GIT_ASKPASS"]);

const factsCache = new Map<string, BashFacts>();

/** Segments of a command line (cached per command and cwd; the result is shared — never mutate it). */
export function analyzeBash(command: string, cwd: string): BashFacts {
  const key = `${cwd}\0${command}`;
  const hit = factsCache.get(key);
  if (hit) return hit;
  const out = analyzeBashUncached(command, cwd);
  factsCache.set(key, out);
  if (factsCache.size > 500) factsCache.delete(factsCache.keys().next().value!);
  return out;
}

function analyzeBashUncached(command: string, cwd: string): BashFacts {
  if (command.length > MAX_LEN) {
    const seg = crudeSegment(command, cwd, `the command is longer than ${MAX_LEN} characters`);
    return { ok: false, error: `command longer than ${MAX_LEN} characters`, segments: [seg, ...crudeInner(command, cwd)], command };
  }
  const a = analyzeShell(command);
  if (!a.ok) {
    return { ok: false, error: a.error, segments: [crudeSegment(command, cwd, a.error!), ...crudeInner(command, cwd)], command };
  }
  const segments: Segment[] = [];
  let dir = cwd;
  // Literal variables set earlier in the command line (`c=rm; $c -rf /`): deny rules see their values.
  const vars = new Map<string, string>();
  // Aliases defined earlier in the command line (`alias x=rm; x -rf build`): deny rules see what they expand to.
  const aliases = new Map<string, string>();
  for (const sc of a.commands) {
    define(sc, { dir, vars }, vars, aliases);
    const made = segmentsOf(sc, dir, cwd, 0, vars, false, aliases);
    segments.push(...made);
    const head = made[0];
    if (head && !head.inner && (head.words[0] === "cd" || head.words[0] === "pushd")) {
      // A directory we cannot know statically (`cd $X`, `cd -`): later relative paths resolve from "/",
      // i.e. outside every working directory (never auto-approved), and are also checked from cwd.
      const arg = sc.words.find((w, k) => k > 0 && !w.value.startsWith("-") || (k > 0 && w.value === "-"));
      dir = !arg ? cdTarget(undefined, dir) : arg.dynamic || arg.value === "-" ? "/" : cdTarget(arg.value, dir);
    }
  }
  const env: ExpandEnv = { dir, vars };
  const extra = a.redirects.map((r) => redirectRef(r, dir, env)).filter((x): x is PathRef => !!x);
  // `while read l; do …; done < f` reads f: charged to the first command (as writes are).
  const extraReads = a.redirects.filter((r) => r.op === "<").flatMap((r) => expandArg(r.target, env).map((w) => ref(w, dir)));
  if (extra.length || extraReads.length) {
    // (a copy: the segments of a cached analysis are shared)
    const s0 = segments.length ? segments[0]! : emptySegment(dir, []);
    segments[0] = { ...s0, redirectWrites: [...s0.redirectWrites, ...extra], reads: [...s0.reads, ...extraReads] };
    if (extraReads.length && !s0.words.length) segments[0].readOnly = false;
  }
  return { ok: true, segments, command };
}

function cdTarget(arg: string | undefined, dir: string): string {
  if (!arg || arg === "~") return process.env.HOME ?? dir;
  if (arg.startsWith("~/")) return (process.env.HOME ?? "") + arg.slice(1);
  if (arg.startsWith("/")) return arg;
  return `${dir}/${arg}`;
}

function redirectRef(r: { op: string; fd?: string; target: ShellWord }, base: string, env?: ExpandEnv): PathRef | undefined {
  if (!/^(>|>>|>\||&>|&>>|<>)$/.test(r.op) && !(r.op === ">&" && !/^(\d+|-)$/.test(r.target.value))) return undefined;
  const t = env ? expandArg(r.target, env)[0]! : r.target;
  if (NULL_DEVICES.test(t.value)) return undefined;
  return ref(t, base);
}

function ref(w: ShellWord, base: string): PathRef {
  return { path: w.value, base, dynamic: w.dynamic, glob: !w.quoted && /[*?[]/.test(w.value) };
}

function emptySegment(dir: string, redirectWrites: PathRef[] = []): Segment {
  return { words: [], text: "", rawText: "", denyTexts: [], readOnly: true, editOp: false, reads: [], writes: [], redirectWrites, suspects: [], dir };
}

function crudeSegment(command: string, dir: string, why: string): Segment {
  const text = command.trim().replace(/\s+/g, " ");
  return { ...emptySegment(dir), words: text.split(" "), text, rawText: text, denyTexts: [text], unallowable: why, readOnly: false };
}

/** Unparseable: every crude piece is checked by deny/ask (stripped of wrappers as far as we can tell). */
function crudeInner(command: string, dir: string): Segment[] {
  return crudeSplit(command).flatMap((words) => {
    const ws = words.map((v) => ({ value: v, raw: v, dynamic: /[$`]/.test(v), quoted: false }));
    return segmentsOf({ assigns: [], words: ws, redirects: [] }, dir, dir, 0).map((s) => ({ ...s, inner: true }));
  });
}

/** Record the literal variables (`c=rm`, `export c=rm`) and aliases (`alias x='rm -rf'`) a command defines for the commands after it. */
function define(sc: SimpleCommand, env: ExpandEnv, vars: Map<string, string>, aliases: Map<string, string>): void {
  // `export cmd` (no `=`) keeps the value set before.
  if (!sc.words.length || sc.decl) for (const as of sc.assigns) if (as.raw.includes("=")) vars.set(as.name, literalValue(as.raw.slice(as.raw.indexOf("=") + 1)));
  const head = sc.words[0];
  if (!head || head.dynamic || head.value !== "alias") return;
  for (const w of sc.words.slice(1)) {
    const v = staticValue(w, env);
    const m = v === undefined ? null : /^([^=\s/$`'"]+)=([\s\S]*)$/.exec(v);
    if (m) aliases.set(m[1]!, m[2]!);
  }
}

/** A command whose first word is an alias defined earlier: the text it becomes, run like a shell string (deny/ask see it). */
function aliasExpansion(words: readonly ShellWord[], aliases: ReadonlyMap<string, string> | undefined, run: CodeRun): void {
  const head = words[0];
  if (!aliases?.size || !head || head.dynamic || head.quoted || head.raw !== head.value || !aliases.has(head.value)) return;
  run.unallowable ??= `${head.value} is an alias defined earlier in the command line`;
  run.shells.push([aliases.get(head.value)!, ...words.slice(1).map((w) => w.raw)].join(" "));
}

/** One simple command → its segment, plus inner segments for commands it runs. */
function segmentsOf(sc: SimpleCommand, dir: string, cwd: string, depth: number, vars?: ReadonlyMap<string, string>, fromPipe = false, aliases?: ReadonlyMap<string, string>): Segment[] {
  const env: ExpandEnv = { dir, vars };
  const { redirectWrites, reads } = redirectsOf(sc, dir, env);
  const fullWords = sc.words;
  if (!fullWords.length) {
    // `$(< f)` is `cat f`: a reader like any other.
    if (reads.length && !sc.assigns.length) return segmentsOf({ ...sc, words: [lit("cat"), ...sc.redirects.filter((r) => r.op === "<").map((r) => r.target)], redirects: sc.redirects.filter((r) => r.op !== "<") }, dir, cwd, depth, vars, fromPipe);
    return [assignmentSegment(sc, dir, redirectWrites, reads)];
  }
  const run: CodeRun = { inner: [], shells: [] };
  aliasExpansion(fullWords, aliases, run);
  // Variables whose value is a command the program will run (`GIT_SSH_COMMAND='rm -rf /' git fetch`).
  for (const a of sc.assigns) if (COMMAND_VARS.has(a.name)) run.shells.push(literalValue(a.raw.slice(a.raw.indexOf("=") + 1)) || a.raw.slice(a.raw.indexOf("=") + 1));
  const start = stripWrappers(fullWords, run);
  const words = fullWords.slice(start);
  // Operands that `xargs` appends come from its input: unknown paths.
  const piped = fromPipe || fullWords.slice(0, start).some((w) => base(w.value) === "xargs");
  if (!words.length) return [wrappersOnlySegment(fullWords, dir, redirectWrites, run), ...innerSegments(run.inner, run.shells, dir, cwd, depth)];
  const head = words[0]!;
  const name = head.dynamic ? "" : base(head.value);
  computedHead(head, words, run, env);
  if (sc.decl && sc.assigns.some((a) => !SAFE_ENV.has(a.name) && !/^[a-z_][a-z0-9_]*$/.test(a.name))) run.unallowable ??= "it exports variables that change later commands";
  // Shells and code runners.
  runsCode(name, words, run, { stdin: sc.stdin, env });
  const seg = commandSegment(sc, words, name, env, depth, run.unallowable, redirectWrites, reads, piped);
  return [seg, ...innerSegments(run.inner, run.shells, dir, cwd, depth, run.piped)];
}

/** Output redirection targets and `<` inputs of a simple command. */
function redirectsOf(sc: SimpleCommand, dir: string, env: ExpandEnv): { redirectWrites: PathRef[]; reads: PathRef[] } {
  const redirectWrites: PathRef[] = [];
  const reads: PathRef[] = [];
  for (const r of sc.redirects) {
    const w = redirectRef(r, dir, env);
    if (w) redirectWrites.push(w);
    else if (r.op === "<") reads.push(...expandArg(r.target, env).map((x) => ref(x, dir)));
  }
  return { redirectWrites, reads };
}

/** A bare assignment changes the environment of later commands: only harmless names pass. */
function assignmentSegment(sc: SimpleCommand, dir: string, redirectWrites: PathRef[], reads: PathRef[]): Segment {
  const unsafeAssigns = sc.assigns.filter((a) => !SAFE_ENV.has(a.name) && !/^[a-z_][a-z0-9_]*$/.test(a.name));
  const seg = emptySegment(dir, redirectWrites);
  seg.reads = reads;
  if (unsafeAssigns.length) {
    seg.words = sc.assigns.map((a) => a.raw);
    seg.text = seg.rawText = seg.words.join(" ");
    seg.denyTexts = [seg.text];
    seg.readOnly = false;
    seg.unallowable = `it sets ${unsafeAssigns.map((a) => a.name).join(", ")} for the commands after it`;
  }
  return seg;
}

/** Strip wrappers (and remember in `run` what they hid); returns the index of the wrapped command. */
function stripWrappers(fullWords: ShellWord[], run: CodeRun): number {
  let extraAssigns: string[] = [];
  let i = 0;
  for (let guard = 0; guard < 8 && i < fullWords.length; guard++) {
    const w = fullWords[i]!;
    if (w.dynamic) break;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)) {
      // `timeout 5 FOO=1 cmd`: not an assignment to the shell, but never let it hide `cmd` from deny rules.
      extraAssigns = [...extraAssigns, w.value];
      i++;
      continue;
    }
    const name = base(w.value);
    if (!WRAPPERS.has(name)) break;
    const j = skipWrapper(name, fullWords, i, (e) => (extraAssigns = [...extraAssigns, e]), (why) => (run.unallowable ??= why), run.inner, run.shells);
    if (j === undefined) break;
    i = j;
  }
  return i;
}

/** Only wrappers (`env`, `time`): prints or runs nothing — unless a wrapper ran a string (`env -S`). */
function wrappersOnlySegment(fullWords: ShellWord[], dir: string, redirectWrites: PathRef[], run: CodeRun): Segment {
  const seg = emptySegment(dir, redirectWrites);
  seg.words = fullWords.map((w) => w.value);
  seg.text = seg.rawText = seg.words.join(" ");
  seg.denyTexts = [seg.text];
  seg.unallowable = run.unallowable;
  seg.readOnly = !run.unallowable;
  return seg;
}

/**
 * A command name computed at run time (`$c`, `$(echo rm)`, `r${EMPTY}m`, `{rm,-rf,/}`): never
 * allowable; what it becomes — known values, literal output, unknown variables as empty — is an
 * inner command that deny/ask rules see.
 */
function computedHead(head: ShellWord, words: ShellWord[], run: CodeRun, env: ExpandEnv): void {
  if (head.dynamic) {
    run.unallowable ??= "the command name is computed at run time";
    const known = staticValue(head, env) ?? staticValue(head, env, true);
    if (known) run.inner.push([...known.split(/\s+/).filter(Boolean).map(lit), ...words.slice(1)]);
  } else if (!head.quoted && /\{[^{}]*(,|\.\.)[^{}]*\}/.test(head.value)) {
    // `{rm,-rf,/}` is `rm -rf /` after brace expansion.
    run.unallowable ??= "the command name comes from brace expansion";
    run.inner.push(words.flatMap((w) => (w.quoted || w.dynamic ? [w] : expandBraces(w.value).map(lit))));
  }
}

/** The segment of the command itself: readers and writers, deny texts, suspects. */
function commandSegment(
  sc: SimpleCommand,
  words: ShellWord[],
  name: string,
  env: ExpandEnv,
  depth: number,
  unallowable: string | undefined,
  redirectWrites: PathRef[],
  reads: PathRef[],
  piped: boolean,
): Segment {
  const dir = env.dir;
  const fullWords = sc.words;
  const vals = words.map((w) => w.value);
  const head = words[0]!;
  // Operands as the shell will pass them (expansion before any path check).
  const xwords = [head];
  for (let k = 1; k < words.length; k++) xwords.push(...expandArg(words[k]!, env));
  const xvals = xwords.map((w) => w.value);
  const verdict = name ? readOnlyVerdict(name, xvals) : undefined;
  const io = fileArgs(name, xwords, dir);
  const seen = new Set<string>();
  for (const r of [...io.reads, ...(verdict?.reads ?? []).map((x) => (x.path === undefined ? ref(xwords[x.i]!, dir) : { ...ref(xwords[x.i]!, dir), path: x.path }))]) {
    if (r.path === "-" || NULL_DEVICES.test(r.path) || seen.has(r.path)) continue;
    seen.add(r.path);
    reads.push(r);
  }
  if (piped && READERS[name]) reads.push({ path: "<input of xargs>", base: dir, dynamic: true, glob: false });
  // Only harmless variables may prefix a read-only command (PAGER, LESSOPEN, GIT_EXTERNAL_DIFF … run programs).
  const envOk = sc.assigns.every((a) => SAFE_ENV.has(a.name));
  const seg: Segment = {
    words: vals,
    text: textOf(sc, words, false),
    rawText: textOf(sc, words, true),
    denyTexts: [],
    unallowable,
    readOnly: !!verdict?.ok && envOk && !unallowable,
    editOp: editCommand(name, xvals) && !unallowable,
    reads,
    writes: io.writes,
    redirectWrites,
    suspects: [],
    dir,
    inner: depth > 0 || undefined,
  };
  const bare = vals.join(" ");
  const fullVals = fullWords.length === words.length ? bare : fullWords.map((w) => w.value).join(" ");
  const full = sc.assigns.length ? [...sc.assigns.map((a) => a.raw), fullVals].join(" ") : fullVals;
  const deny: string[] = [];
  const add = (t: string) => {
    if (!deny.includes(t)) deny.push(t);
  };
  add(seg.text);
  add(seg.rawText);
  add(bare);
  add(words.map((w) => w.raw).join(" "));
  add(full);
  add(fullVals);
  add(xwords.length === words.length && xwords.every((w, k) => w === words[k]) ? bare : xvals.join(" "));
  if (head.value.includes("/")) add([name, ...vals.slice(1)].join(" "));
  if (name === "git") {
    // Deny texts without git's global options (`git -C . push` is `git push`).
    const g = gitSplit(vals.slice(1));
    if (g.sub) add(["git", g.sub, ...g.rest].join(" "));
  }
  seg.denyTexts = deny;
  if (!DATA_HEADS.has(name) && !WRAPPERS.has(name) && !EXEC_THROUGH[name] && name !== "find" && depth === 0) {
    for (let k = 1; k < words.length; k++) {
      const w = words[k]!;
      if (!w.dynamic && !w.quoted && /^[A-Za-z_][A-Za-z0-9_.+-]*$/.test(w.value)) seg.suspects.push(vals.slice(k).join(" "));
    }
  }
  return seg;
}

/** Segments for commands run by another command (deny/ask only). */
function innerSegments(inner: ShellWord[][], shells: string[], dir: string, cwd: string, depth: number, piped?: Set<ShellWord[]>): Segment[] {
  const out: Segment[] = [];
  if (depth >= 4) return out;
  for (const ws of inner) {
    if (!ws.length) continue;
    for (const s of segmentsOf({ assigns: [], words: ws, redirects: [] }, dir, cwd, depth + 1, undefined, !!piped?.has(ws))) out.push({ ...s, inner: true });
  }
  for (const src of shells) {
    const sub = src.length > MAX_LEN ? undefined : analyzeShell(src);
    if (!sub?.ok) {
      out.push({ ...crudeSegment(src, dir, "unparseable inner shell command"), inner: true });
      out.push(...crudeInner(src, dir));
      continue;
    }
    const vars = new Map<string, string>();
    const aliases = new Map<string, string>();
    for (const c of sub.commands) {
      define(c, { dir, vars }, vars, aliases);
      for (const s of segmentsOf(c, dir, cwd, depth + 1, vars, false, aliases)) out.push({ ...s, inner: true });
    }
  }
  return out;
}

/** Advance past one wrapper and its own options/arguments; returns the index of the wrapped command. */
function skipWrapper(
  name: string,
  ws: ShellWord[],
  i: number,
  onAssign: (raw: string) => void,
  onUnallowable: (why: string) => void,
  inner: ShellWord[][],
  shells: string[],
): number | undefined {
  const v = (k: number) => ws[k]?.value ?? "";
  let k = i + 1;
  switch (name) {
    case "timeout":
      while (k < ws.length && v(k).startsWith("-")) k += /^-(s|k)$|^--(signal|kill-after)$/.test(v(k)) ? 2 : 1;
      return k + 1 < ws.length + 1 && /^\d/.test(v(k)) ? k + 1 : undefined;
    case "time":
      while (k < ws.length && v(k).startsWith("-")) k += /^-(f|o)$|^--(format|output)$/.test(v(k)) ? 2 : 1;
      return k;
    case "nice":
      while (k < ws.length && v(k).startsWith("-")) k += v(k) === "-n" || v(k) === "--adjustment" ? 2 : 1;
      return k;
    case "nohup":
    case "builtin":
    case "noglob":
      return k;
    case "stdbuf":
      while (k < ws.length && v(k).startsWith("-")) k += /^-[ioe]$|^--(input|output|error)$/.test(v(k)) ? 2 : 1;
      return k;
    case "command":
      if (/^-[vV]/.test(v(k))) return undefined;
      while (k < ws.length && v(k) === "-p") k++;
      return k;
    case "env":
      while (k < ws.length) {
        const a = v(k);
        if (a === "-S" || a.startsWith("--split-string")) {
          onUnallowable("env -S runs a string as a command");
          shells.push(a.includes("=") ? a.slice(a.indexOf("=") + 1) : v(k + 1));
          return ws.length;
        }
        if (a === "-C" || a === "--chdir") {
          onUnallowable("env -C changes directory");
          k += 2;
        } else if (a === "-u" || a === "--unset") k += 2;
        else if (a.startsWith("-")) k++;
        else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
          onAssign(a);
          const nm = a.slice(0, a.indexOf("="));
          if (!SAFE_ENV.has(nm) && !/^[a-z_][a-z0-9_]*$/.test(nm)) onUnallowable(`env sets ${nm}`);
          k++;
        } else break;
      }
      return k;
    case "xargs":
      if (k < ws.length && v(k).startsWith("-")) return undefined;
      return k;
  }
  return undefined;
}

function textOf(sc: SimpleCommand, words: ShellWord[], raw: boolean): string {
  let out: string | undefined;
  for (const a of sc.assigns) if (!SAFE_ENV.has(a.name)) out = out === undefined ? a.raw : `${out} ${a.raw}`;
  for (const w of words) out = out === undefined ? (raw ? w.raw : w.value) : `${out} ${raw ? w.raw : w.value}`;
  return out ?? "";
}

/** A variable's value as the shell would see it, for simple literal assignments (else ""). */
function literalValue(raw: string): string {
  if (/^'[^']*'$/.test(raw)) return raw.slice(1, -1);
  if (/^"[^"$`\\]*"$/.test(raw)) return raw.slice(1, -1);
  return /^[^$`'"\\(){}]*$/.test(raw) ? raw : "";
}

function base(cmd: string): string {
  const i = cmd.lastIndexOf("/");
  return i >= 0 ? cmd.slice(i + 1) : cmd;
}
