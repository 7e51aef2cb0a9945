/**
 * From a shell command line to the segments Bash rules are matched against.
 *
 * Each simple command (see shell.ts) becomes a Segment: wrappers (`timeout 5`, `nice -n 5`,
 * `env -i A=b`, bare `xargs` …) and leading `VAR=x` are stripped; commands that run other code
 * (`bash -c`, `eval`, `find -exec`, `xargs -0 rm`, `sudo`, `npx` …) also yield *inner* segments,
 * which only deny/ask rules look at; recognised readers and writers contribute the paths that
 * Read/Edit rules check. Allow needs every segment; deny/ask need any.
 */
import { analyzeShell, crudeSplit, type ShellWord, type SimpleCommand } from "./shell.ts";

export interface PathRef {
  /** The path as written (tilde and globs unexpanded). */
  path: string;
  /** Directory it is relative to (the effective working directory after `cd`). */
  base: string;
  /** Contains an expansion we cannot resolve statically. */
  dynamic: boolean;
  /** Unquoted glob characters. */
  glob: boolean;
}

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
  /** `mkdir touch mv cp`: auto-approved in acceptEdits mode inside the working directories. */
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

/** Variables that may prefix an allowed command without being named in the rule. */
export const SAFE_ENV = new Set(
  "CI NODE_ENV DEBUG LANG LANGUAGE LC_ALL LC_CTYPE LC_MESSAGES TZ NO_COLOR FORCE_COLOR TERM COLUMNS LINES RUST_BACKTRACE RUST_LOG PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE GOOS GOARCH CGO_ENABLED VERBOSE TMPDIR".split(" "),
);

const WRAPPERS = new Set(["timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob", "env", "xargs"]);
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox"]);
/** Programs that run the rest of their arguments as a command. value = positionals to skip before it. */
const EXEC_THROUGH: Record<string, { skip: number; opts?: string }> = {
  sudo: { skip: 0, opts: "ugh pCDrtUT" },
  doas: { skip: 0, opts: "uC" },
  setsid: { skip: 0 },
  ionice: { skip: 0, opts: "cnpt" },
  flock: { skip: 1, opts: "wE" },
  chrt: { skip: 1 },
  taskset: { skip: 1 },
  strace: { skip: 0, opts: "oeEpsSuPIXa" },
  ltrace: { skip: 0, opts: "oeEpsSuna" },
  nsenter: { skip: 0, opts: "tSGwr" },
  unshare: { skip: 0 },
  chroot: { skip: 1 },
  caffeinate: { skip: 0, opts: "tw" },
  npx: { skip: 0, opts: "pc" },
  bunx: { skip: 0 },
  pnpx: { skip: 0 },
  uvx: { skip: 0 },
  unbuffer: { skip: 0 },
  rlwrap: { skip: 0 },
  faketime: { skip: 1 },
  proxychains: { skip: 0, opts: "f" },
  proxychains4: { skip: 0, opts: "f" },
  torsocks: { skip: 0 },
  firejail: { skip: 0 },
  valgrind: { skip: 0 },
  catchsegv: { skip: 0 },
  dbus_launch: { skip: 0 },
};
/** Two-word heads that run a command: "npm exec", "docker exec CONTAINER" … */
const EXEC_THROUGH2: Record<string, { skip: number; afterDashDash?: boolean }> = {
  "npm exec": { skip: 0 },
  "pnpm exec": { skip: 0 },
  "pnpm dlx": { skip: 0 },
  "yarn exec": { skip: 0 },
  "yarn dlx": { skip: 0 },
  "uv run": { skip: 0 },
  "poetry run": { skip: 0 },
  "pipenv run": { skip: 0 },
  "bundle exec": { skip: 0 },
  "docker exec": { skip: 1 },
  "podman exec": { skip: 1 },
  "kubectl exec": { skip: 1, afterDashDash: true },
  "devbox run": { skip: 0 },
  "mise exec": { skip: 0, afterDashDash: true },
  "mise x": { skip: 0, afterDashDash: true },
  "direnv exec": { skip: 1 },
  "nix-shell --run": { skip: 0 },
};
/** Programs whose later words are data, never commands (no "suspect" scan). */
const DATA_HEADS = new Set(
  "echo printf grep egrep fgrep rg ag ack man which type whatis apropos help info tldr git npm yarn pnpm cargo go make docker podman kubectl gh brew apt apt-get pip pip3 curl wget jq yq sed awk test [ [[ cat head tail less more wc sort uniq cut tr ls find cd pwd true false set export declare local readonly unset alias".split(" "),
);

/** Read-only commands auto-approved when every path they touch is inside the working directories. */
const READ_ONLY = new Set(
  "ls cat echo printf pwd head tail grep egrep fgrep rg wc which type diff cmp stat du df file tree basename dirname realpath readlink date whoami id uname hostname true false test [ seq nl tac jq cut tr column md5sum sha1sum sha256sum sha512sum cksum strings od hexdump less more cd printenv comm find sort uniq xxd env".split(" "),
);
const GIT_READ_ONLY = new Set("status log diff show rev-parse ls-files ls-tree blame describe shortlog reflog cat-file grep whatchanged merge-base show-ref count-objects version help".split(" "));

/** Readers: which operands are file paths. `pattern`: the first operand is a pattern/script. `argOpts`: short options taking a value. */
const READERS: Record<string, { pattern?: boolean; argOpts?: string; fileOpts?: string }> = {
  cat: {}, tac: {}, nl: { argOpts: "bdfhilnsvw" }, head: { argOpts: "nc" }, tail: { argOpts: "ncs" }, less: {}, more: {}, bat: { argOpts: "lrH" }, batcat: { argOpts: "lrH" },
  view: {}, od: { argOpts: "AjNtw" }, xxd: { argOpts: "cglos" }, hexdump: { argOpts: "enfs" }, strings: { argOpts: "nte" }, base64: { argOpts: "w" },
  md5sum: {}, sha1sum: {}, sha256sum: {}, sha512sum: {}, cksum: {}, wc: {}, sort: { argOpts: "kto" , fileOpts: "" }, uniq: { argOpts: "fsw" }, cut: { argOpts: "bcdf" },
  file: {}, stat: { argOpts: "c" }, diff: {}, cmp: {}, comm: {}, paste: { argOpts: "d" }, column: { argOpts: "stc" }, fold: { argOpts: "w" }, fmt: { argOpts: "w" },
  grep: { pattern: true, argOpts: "efmABCD", fileOpts: "f" }, egrep: { pattern: true, argOpts: "efmABCD", fileOpts: "f" }, fgrep: { pattern: true, argOpts: "efmABCD", fileOpts: "f" },
  rg: { pattern: true, argOpts: "efgmABCtTMj", fileOpts: "f" }, ag: { pattern: true, argOpts: "ABCGm" }, ack: { pattern: true },
  sed: { pattern: true, argOpts: "efl", fileOpts: "f" }, awk: { pattern: true, argOpts: "fvF", fileOpts: "f" }, gawk: { pattern: true, argOpts: "fvF", fileOpts: "f" },
  jq: { pattern: true, argOpts: "", fileOpts: "" }, yq: { pattern: true },
  ls: { argOpts: "IwT" }, tree: { argOpts: "LIP" }, du: { argOpts: "dB" }, find: {}, source: {}, ".": {},
};
/** Commands whose operands are written (Edit rules): value = which operands. */
const WRITERS: Record<string, "all" | "last" | "rest"> = { tee: "all", touch: "all", mkdir: "all", rm: "all", rmdir: "all", truncate: "all", mv: "all", cp: "last", ln: "last", install: "last", chmod: "rest", chown: "rest", chgrp: "rest", shred: "all", unlink: "all" };
const EDIT_OPS = new Set(["mkdir", "touch", "mv", "cp"]);

/** Long-option synonyms of short flags, for flag-set matching of deny rules (`rm --recursive --force` ≡ `rm -rf`). */
export const LONG_FLAGS: Record<string, Record<string, string>> = {
  rm: { "--recursive": "r", "--force": "f", R: "r", "--dir": "d" },
  cp: { "--recursive": "r", R: "r", "--force": "f" },
  chmod: { "--recursive": "R" },
  chown: { "--recursive": "R" },
  "git push": { "--force": "f" },
  "git clean": { "--force": "f" },
  "git reset": {},
};

const NULL_DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

export function analyzeBash(command: string, cwd: string): BashFacts {
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
  for (const sc of a.commands) {
    const made = segmentsOf(sc, dir, cwd, 0);
    segments.push(...made);
    const head = made[0];
    if (head && !head.inner && head.words[0] === "cd") dir = cdTarget(head.words[1], dir);
  }
  const extra = a.redirects.map((r) => redirectRef(r, dir)).filter((x): x is PathRef => !!x);
  if (extra.length) {
    if (segments.length) segments[0]!.redirectWrites.push(...extra);
    else segments.push(emptySegment(dir, extra));
  }
  return { ok: true, segments, command };
}

function cdTarget(arg: string | undefined, dir: string): string {
  if (!arg || arg === "~") return process.env.HOME ?? dir;
  if (arg.startsWith("~/")) return (process.env.HOME ?? "") + arg.slice(1);
  if (arg.startsWith("/")) return arg;
  return `${dir}/${arg}`;
}

function redirectRef(r: { op: string; fd?: string; target: ShellWord }, base: string): PathRef | undefined {
  if (!/^(>|>>|>\||&>|&>>|<>)$/.test(r.op) && !(r.op === ">&" && !/^(\d+|-)$/.test(r.target.value))) return undefined;
  if (NULL_DEVICES.test(r.target.value)) return undefined;
  return ref(r.target, base);
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

/** One simple command → its segment, plus inner segments for commands it runs. */
function segmentsOf(sc: SimpleCommand, dir: string, cwd: string, depth: number): Segment[] {
  const redirectWrites: PathRef[] = [];
  const reads: PathRef[] = [];
  for (const r of sc.redirects) {
    const w = redirectRef(r, dir);
    if (w) redirectWrites.push(w);
    else if (r.op === "<") reads.push(ref(r.target, dir));
  }
  const fullWords = sc.words;
  const unsafeAssigns = sc.assigns.filter((a) => !SAFE_ENV.has(a.name) && !/^[a-z_][a-z0-9_]*$/.test(a.name));
  if (!fullWords.length) {
    // A bare assignment changes the environment of later commands: only harmless names pass.
    const seg = emptySegment(dir, redirectWrites);
    seg.reads = reads;
    if (unsafeAssigns.length) {
      seg.words = sc.assigns.map((a) => a.raw);
      seg.text = seg.rawText = seg.words.join(" ");
      seg.denyTexts = [seg.text];
      seg.readOnly = false;
      seg.unallowable = `it sets ${unsafeAssigns.map((a) => a.name).join(", ")} for the commands after it`;
    }
    return [seg];
  }
  const out: Segment[] = [];
  const inner: ShellWord[][] = [];
  const shells: string[] = [];
  let unallowable: string | undefined;
  let extraAssigns: string[] = [];
  // Strip wrappers (and remember what they hid).
  let i = 0;
  for (let guard = 0; guard < 8 && i < fullWords.length; guard++) {
    const w = fullWords[i]!;
    if (w.dynamic) break;
    const name = base(w.value);
    if (!WRAPPERS.has(name)) break;
    const j = skipWrapper(name, fullWords, i, (e) => (extraAssigns = [...extraAssigns, e]), (why) => (unallowable ??= why), inner, shells);
    if (j === undefined) break;
    i = j;
  }
  const words = fullWords.slice(i);
  if (!words.length) {
    // Only wrappers (`env`, `time`): prints or runs nothing — unless a wrapper ran a string (`env -S`).
    const seg = emptySegment(dir, redirectWrites);
    seg.words = fullWords.map((w) => w.value);
    seg.text = seg.rawText = seg.words.join(" ");
    seg.denyTexts = [seg.text];
    seg.unallowable = unallowable;
    seg.readOnly = !unallowable;
    return [seg, ...innerSegments(inner, shells, dir, cwd, depth)];
  }
  const vals = words.map((w) => w.value);
  const head = words[0]!;
  const name = head.dynamic ? "" : base(head.value);
  if (head.dynamic) unallowable ??= "the command name is computed at run time";
  if (sc.decl && sc.assigns.some((a) => !SAFE_ENV.has(a.name) && !/^[a-z_][a-z0-9_]*$/.test(a.name))) unallowable ??= "it exports variables that change later commands";

  // Shells and code runners.
  if (SHELLS.has(name)) {
    const c = words.findIndex((w, k) => k > 0 && /^-[a-z]*c[a-z]*$/.test(w.value));
    if (c > 0) {
      unallowable ??= `it runs another shell (${name} -c)`;
      if (words[c + 1]) shells.push(words[c + 1]!.value);
    }
  } else if (name === "eval") {
    unallowable ??= "eval runs a string as a command";
    shells.push(vals.slice(1).join(" "));
  } else if (name === "source" || name === ".") {
    unallowable ??= `${name} runs a script in this shell`;
  } else if (name === "exec") {
    unallowable ??= "exec replaces the shell with another command";
    if (words.length > 1) inner.push(words.slice(1).filter((w, k) => k > 0 || !w.value.startsWith("-")));
  } else if (name === "find") {
    for (let k = 1; k < words.length; k++) {
      const v = words[k]!.value;
      if (/^-(exec|execdir|ok|okdir)$/.test(v)) {
        unallowable ??= `find ${v} runs a command`;
        const end = words.findIndex((x, m) => m > k && (x.value === ";" || x.value === "+"));
        inner.push(words.slice(k + 1, end < 0 ? undefined : end));
      } else if (v === "-delete") {
        unallowable ??= "find -delete deletes files";
        const starts = words.slice(1).filter((x) => !x.value.startsWith("-") && !x.value.startsWith("(") && !x.value.startsWith("!"));
        inner.push([{ value: "rm", raw: "rm", dynamic: false, quoted: false }, ...starts.slice(0, 1)]);
      } else if (/^-(fprint|fprint0|fprintf|fls)$/.test(v)) {
        unallowable ??= `find ${v} writes a file`;
      }
    }
  } else if (name === "xargs") {
    // Only reached when xargs had flags (bare xargs is a wrapper).
    unallowable ??= "xargs with options runs a command built from its input";
    inner.push(skipOptions(words, 1, "IiLlnPsdEeaR"));
  } else if (EXEC_THROUGH[name] && words.length > 1) {
    const spec = EXEC_THROUGH[name]!;
    const rest = skipOptions(words, 1, spec.opts ?? "").slice(spec.skip);
    const cIdx = name === "flock" ? words.findIndex((w) => w.value === "-c") : -1;
    if (cIdx > 0 && words[cIdx + 1]) shells.push(words[cIdx + 1]!.value);
    else if (rest.length) inner.push(rest);
  } else if (name === "watch" && words.length > 1) {
    unallowable ??= "watch runs its arguments through a shell";
    shells.push(skipOptions(words, 1, "nd").map((w) => w.value).join(" "));
  } else if ((name === "su" || name === "script" || name === "runuser") && words.some((w) => w.value === "-c")) {
    unallowable ??= `${name} -c runs a shell`;
    const k = words.findIndex((w) => w.value === "-c");
    if (words[k + 1]) shells.push(words[k + 1]!.value);
  } else if (name === "ssh" && words.length > 2) {
    const rest = skipOptions(words, 1, "bcDEeFIiJLlmOopQRSWw").slice(1);
    if (rest.length) {
      unallowable ??= "ssh runs a command on another machine";
      shells.push(rest.map((w) => w.value).join(" "));
    }
  } else if (words.length > 2 && EXEC_THROUGH2[`${name} ${vals[1]}`]) {
    const spec = EXEC_THROUGH2[`${name} ${vals[1]}`]!;
    let rest = words.slice(2);
    const dd = rest.findIndex((w) => w.value === "--");
    if (spec.afterDashDash && dd >= 0) rest = rest.slice(dd + 1);
    else rest = skipOptions(rest, 0, "").slice(spec.skip);
    if (rest.length) inner.push(rest);
  }

  // Readers and writers.
  const ro = readOnlyCommand(name, vals);
  const io = fileArgs(name, words, dir);
  reads.push(...io.reads);
  const seg: Segment = {
    words: vals,
    text: textOf(sc, words, false),
    rawText: textOf(sc, words, true),
    denyTexts: [],
    unallowable,
    readOnly: ro && !unallowable,
    editOp: EDIT_OPS.has(name) && !unallowable,
    reads,
    writes: io.writes,
    redirectWrites,
    suspects: [],
    dir,
    inner: depth > 0 || undefined,
  };
  const bare = vals.join(" ");
  const full = [...sc.assigns.map((a) => a.raw), ...fullWords.map((w) => w.value)].join(" ");
  const deny = new Set([seg.text, seg.rawText, bare, words.map((w) => w.raw).join(" "), full, fullWords.map((w) => w.value).join(" ")]);
  if (head.value.includes("/")) deny.add([name, ...vals.slice(1)].join(" "));
  seg.denyTexts = [...deny];
  if (!DATA_HEADS.has(name) && !WRAPPERS.has(name) && !EXEC_THROUGH[name] && name !== "find" && depth === 0) {
    for (let k = 1; k < words.length; k++) {
      const w = words[k]!;
      if (!w.dynamic && !w.quoted && /^[A-Za-z_][A-Za-z0-9_.+-]*$/.test(w.value)) seg.suspects.push(vals.slice(k).join(" "));
    }
  }
  out.push(seg, ...innerSegments(inner, shells, dir, cwd, depth));
  return out;
}

/** Segments for commands run by another command (deny/ask only). */
function innerSegments(inner: ShellWord[][], shells: string[], dir: string, cwd: string, depth: number): Segment[] {
  const out: Segment[] = [];
  if (depth >= 4) return out;
  for (const ws of inner) {
    if (!ws.length) continue;
    for (const s of segmentsOf({ assigns: [], words: ws, redirects: [] }, dir, cwd, depth + 1)) out.push({ ...s, inner: true });
  }
  for (const src of shells) {
    const sub = src.length > MAX_LEN ? undefined : analyzeShell(src);
    if (!sub?.ok) {
      out.push({ ...crudeSegment(src, dir, "unparseable inner shell command"), inner: true });
      out.push(...crudeInner(src, dir));
      continue;
    }
    for (const c of sub.commands) for (const s of segmentsOf(c, dir, cwd, depth + 1)) out.push({ ...s, inner: true });
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
      while (k < ws.length && v(k).startsWith("-")) k += /^-(f|o)$/.test(v(k)) ? 2 : 1;
      return k;
    case "nice":
      while (k < ws.length && v(k).startsWith("-")) k += v(k) === "-n" ? 2 : 1;
      return k;
    case "nohup":
    case "builtin":
    case "noglob":
      return k;
    case "stdbuf":
      while (k < ws.length && v(k).startsWith("-")) k += /^-[ioe]$/.test(v(k)) ? 2 : 1;
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
        } else if (a === "-u") k += 2;
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

/** Skip options (and the values of options in `argOpts`) starting at `from`; stops at `--` or the first operand. */
function skipOptions(ws: ShellWord[], from: number, argOpts: string): ShellWord[] {
  let k = from;
  while (k < ws.length) {
    const a = ws[k]!.value;
    if (a === "--") return ws.slice(k + 1);
    if (!a.startsWith("-") || a === "-") break;
    if (!a.startsWith("--") && a.length === 2 && argOpts.includes(a[1]!)) k += 2;
    else k++;
  }
  return ws.slice(k);
}

function readOnlyCommand(name: string, vals: string[]): boolean {
  if (name === "git") {
    let k = 1;
    while (k < vals.length && vals[k]!.startsWith("-")) {
      if (/^-(C|c)$/.test(vals[k]!)) return false; // -C dir / -c config may change what runs
      k++;
    }
    const sub = vals[k] ?? "";
    const rest = vals.slice(k + 1);
    if (GIT_READ_ONLY.has(sub)) return !rest.some((r) => /^--(output|ext-diff)/.test(r) || r === "-o");
    if (sub === "branch") return rest.every((r) => /^(-a|-r|-v|-vv|--list|-l|--show-current|--all|--remotes|--contains|--merged|--no-merged)$/.test(r));
    if (sub === "tag") return rest.every((r) => /^(-l|--list|-n\d*)$/.test(r));
    if (sub === "remote") return rest.every((r) => /^(-v|--verbose|show|get-url)$/.test(r) || !r.startsWith("-")) && !rest.some((r) => /^(add|remove|rm|rename|set-url|prune|set-head|set-branches|update)$/.test(r));
    if (sub === "stash") return rest[0] === "list" || rest[0] === "show";
    if (sub === "config") return rest.some((r) => /^(--get|--get-all|--list|-l|--get-regexp)$/.test(r));
    return false;
  }
  if (!READ_ONLY.has(name)) return false;
  if (name === "find") return !vals.some((v) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(v));
  if (name === "sort") return !vals.some((v) => /^(-o|--output)/.test(v));
  if (name === "env") return vals.length === 1;
  if (name === "uniq" || name === "xxd") return vals.slice(1).filter((v) => !v.startsWith("-")).length <= 1;
  return true;
}

function fileArgs(name: string, words: ShellWord[], dir: string): { reads: PathRef[]; writes: PathRef[] } {
  const reads: PathRef[] = [];
  const writes: PathRef[] = [];
  const rd = READERS[name];
  const wr = WRITERS[name];
  if (!rd && !wr && name !== "sed" && name !== "dd") return { reads, writes };
  const operands: ShellWord[] = [];
  let patternGiven = false;
  let inPlace = false;
  let endOpts = false;
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    const a = w.value;
    if (!endOpts && a === "--") {
      endOpts = true;
      continue;
    }
    if (name === "dd") {
      const m = /^(if|of)=(.*)$/.exec(a);
      if (m) (m[1] === "if" ? reads : writes).push({ ...ref(w, dir), path: m[2]! });
      continue;
    }
    if (!endOpts && a.startsWith("-") && a.length > 1 && !(name === "find" && k > 1)) {
      if (a.startsWith("--")) {
        const m = /^--(file|regexp|expression|output)=(.*)$/.exec(a);
        if (m && (m[1] === "file" || (m[1] === "output" && name === "sort"))) (m[1] === "file" ? reads : writes).push({ ...ref(w, dir), path: m[2]! });
        if (m && (m[1] === "regexp" || m[1] === "expression")) patternGiven = true;
        if (name === "sed" && a.startsWith("--in-place")) inPlace = true;
        continue;
      }
      if (name === "sed" && /^-[a-zA-Z]*i/.test(a)) inPlace = true;
      const letters = a.slice(1);
      for (let c = 0; c < letters.length; c++) {
        const ch = letters[c]!;
        if (rd?.argOpts?.includes(ch)) {
          if (ch === "e" || (ch === "f" && rd.fileOpts?.includes("f"))) patternGiven = true;
          const attached = letters.slice(c + 1);
          const valWord = attached ? { ...w, value: attached } : words[++k];
          if (valWord && rd.fileOpts?.includes(ch)) reads.push(ref(valWord, dir));
          if (valWord && name === "sort" && ch === "o") writes.push(ref(valWord, dir));
          break;
        }
      }
      continue;
    }
    if (name === "find" && k > 1 && a.startsWith("-")) break;
    operands.push(w);
  }
  let ops = operands;
  if (rd?.pattern && !patternGiven) ops = ops.slice(1);
  if (name === "sed" && inPlace) writes.push(...ops.map((w) => ref(w, dir)));
  if (rd) reads.push(...ops.map((w) => ref(w, dir)));
  if (wr) {
    const pick = wr === "all" ? operands : wr === "last" ? operands.slice(-1) : operands.slice(1);
    writes.push(...pick.map((w) => ref(w, dir)));
    if (wr === "last") reads.push(...operands.slice(0, -1).map((w) => ref(w, dir)));
  }
  if ((name === "uniq" || name === "xxd") && ops.length > 1) writes.push(ref(ops[1]!, dir));
  return { reads: reads.filter((r) => r.path !== "-" && !NULL_DEVICES.test(r.path)), writes: writes.filter((r) => !NULL_DEVICES.test(r.path)) };
}

function textOf(sc: SimpleCommand, words: ShellWord[], raw: boolean): string {
  const env = sc.assigns.filter((a) => !SAFE_ENV.has(a.name)).map((a) => a.raw);
  return [...env, ...words.map((w) => (raw ? w.raw : w.value))].join(" ");
}

function base(cmd: string): string {
  const i = cmd.lastIndexOf("/");
  return i >= 0 ? cmd.slice(i + 1) : cmd;
}

// ---------------------------------------------------------------------------------------------
// Bash rule patterns

export interface BashPattern {
  /** Anchored regex over a segment's text. */
  re: RegExp;
  /** No `*`: an exact command (may approve segments a prefix rule never may). */
  exact: boolean;
  /** Flag-set form for deny/ask (`rm -rf *` → head ["rm"], flags {r,f}, rest pattern). */
  flagForm?: { head: string[]; flags: Set<string>; rest?: RegExp };
}

/** `Bash(spec)`: `*` matches anything (spaces too); a trailing ` *` or legacy `:*` also matches the bare command. */
export function compileBashPattern(spec: string, caseInsensitive = false): BashPattern {
  let s = spec.trim().replace(/\s+/g, " ");
  if (s.endsWith(":*")) s = `${s.slice(0, -2)} *`;
  const re = globToRegex(s, caseInsensitive);
  const exact = !s.includes("*");
  return { re, exact, flagForm: flagFormOf(s, caseInsensitive) };
}

export function globToRegex(s: string, ci = false): RegExp {
  let body = "";
  let tail = "";
  let src = s;
  if (src.endsWith(" *")) {
    src = src.slice(0, -2);
    tail = "(?: .*)?";
  }
  for (const ch of src) body += ch === "*" ? ".*" : ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${body}${tail}$`, ci ? "si" : "s");
}

function flagFormOf(s: string, ci: boolean): BashPattern["flagForm"] {
  const ws = s.split(" ");
  const head: string[] = [];
  let k = 0;
  while (k < ws.length && !ws[k]!.startsWith("-") && !ws[k]!.includes("*")) head.push(ws[k++]!);
  const flags = new Set<string>();
  while (k < ws.length && /^-[A-Za-z]+$|^--[a-z][a-z-]*$/.test(ws[k]!)) {
    const f = ws[k++]!;
    const syn = LONG_FLAGS[head.join(" ")] ?? LONG_FLAGS[head[0] ?? ""] ?? {};
    if (f.startsWith("--")) flags.add(syn[f] ?? f);
    else for (const c of f.slice(1)) flags.add(syn[c] ?? c);
  }
  if (!head.length || !flags.size) return undefined;
  const restText = ws.slice(k).join(" ");
  return { head, flags, rest: restText && restText !== "*" ? globToRegex(restText, ci) : undefined };
}

/** Deny/ask flag-set match: same head words, a superset of the rule's flags (in any order/grouping), the rest matching. */
export function flagFormMatches(ff: NonNullable<BashPattern["flagForm"]>, words: string[]): boolean {
  if (words.length < ff.head.length) return false;
  for (let i = 0; i < ff.head.length; i++) if ((i === 0 ? base(words[i]!) : words[i]) !== ff.head[i]) return false;
  const syn = LONG_FLAGS[ff.head.join(" ")] ?? LONG_FLAGS[ff.head[0]!] ?? {};
  const have = new Set<string>();
  const operands: string[] = [];
  let end = false;
  for (const w of words.slice(ff.head.length)) {
    if (!end && w === "--") end = true;
    else if (!end && /^-[A-Za-z]+$/.test(w)) for (const c of w.slice(1)) have.add(syn[c] ?? c);
    else if (!end && w.startsWith("--")) have.add(syn[w.replace(/=.*$/, "")] ?? w.replace(/=.*$/, ""));
    else operands.push(w);
  }
  for (const f of ff.flags) if (!have.has(f)) return false;
  return ff.rest ? ff.rest.test(operands.join(" ")) : true;
}
