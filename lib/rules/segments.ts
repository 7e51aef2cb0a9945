/**
 * Per-program knowledge of commands that run other code (`bash -c`, `eval`, `find -exec`, `sudo` …):
 * one small handler per program, dispatched by `runsCode`. A handler records why a prefix rule may
 * never approve the command and which word lists / shell strings it runs (checked by deny/ask only).
 */
import type { ShellWord } from "./words.ts";
import { gitSplit } from "./grammars/programs.ts";
import { EXEC_THROUGH, EXEC_THROUGH2, SHELLS } from "./commands.ts";
import { literalOutput, staticValue, type ExpandEnv } from "./expand.ts";
import { sedArgs, sedScript } from "./grammars/sed.ts";
import { grammar, parseArgs } from "./grammars/options.ts";
import { nullProto } from "../null-proto.ts";

/** What a command runs besides itself, collected while reading its words. */
export interface CodeRun {
  /** Word lists run as commands. */
  inner: ShellWord[][];
  /** Strings run by a shell. */
  shells: string[];
  /** Why a prefix rule may never approve the command (first reason wins). */
  unallowable?: string;
  /** Word lists (in `inner`) whose operands come from the command's input (`xargs cat`): unknown paths. */
  piped?: Set<ShellWord[]>;
}

/** What else is known about the command: its literal standard input, and how to expand words. */
export interface RunContext {
  stdin?: string;
  env?: ExpandEnv;
}

/** Handles one program's words; returns false when the words are not a form it knows (the next rule applies). */
type ProgramHandler = (name: string, words: ShellWord[], run: CodeRun, ctx: RunContext) => boolean;

/** git config keys whose value is a command (`!cmd` for aliases). */
const GIT_COMMAND_CONFIG = /^(core\.(?:pager|editor|sshCommand|fsmonitor|hooksPath)|alias\.[^=]+|sequence\.editor|diff\.[^=]+\.textconv|filter\.[^=]+\.(?:clean|smudge|process)|credential\.helper|pager\.[^=]+)=(.*)$/s;

function flag(run: CodeRun, why: string): void {
  run.unallowable ??= why;
}

function shellRunner(name: string, words: ShellWord[], run: CodeRun, ctx: RunContext): boolean {
  const c = words.findIndex((w, k) => k > 0 && /^-[a-z]*c[a-z]*$/.test(w.value));
  if (c > 0) {
    flag(run, `it runs another shell (${name} -c)`);
    if (words[c + 1]) pushStrings(run, [words[c + 1]!], ctx);
  } else if (!words.slice(1).some((w) => !w.value.startsWith("-")) || words.some((w) => /^-[a-z]*s[a-z]*$/.test(w.value))) {
    flag(run, `${name} runs commands read from its input`);
    // `echo 'rm -rf x' | sh`, `bash <<< '…'`, a here-doc: the literal input is the script.
    if (ctx.stdin !== undefined) run.shells.push(ctx.stdin);
  } else {
    // `bash <(echo rm -rf x)`: a script whose text is a literal.
    const script = procText(words.slice(1).find((w) => !w.value.startsWith("-")));
    if (script !== undefined) run.shells.push(script);
  }
  return true;
}

/** The literal text a process substitution `<(echo …)` yields. */
function procText(w: ShellWord | undefined): string | undefined {
  const p = w?.parts;
  if (!p || p.length !== 1 || p[0]!.t !== "subst" || !p[0]!.proc) return undefined;
  return literalOutput(p[0]!.src);
}

/** `git -c core.pager='rm -rf /' log`, `git -c alias.x='!sh -c …' x`: config values that are commands. */
function git(_name: string, words: ShellWord[], run: CodeRun): boolean {
  gitRuns(words, run);
  if (!words.some((w) => w.value === "-c")) return false;
  for (let k = 1; k + 1 < words.length && words[k]!.value.startsWith("-"); k++) {
    const m = words[k]!.value === "-c" ? GIT_COMMAND_CONFIG.exec(words[k + 1]!.value) : null;
    if (m) {
      flag(run, `git -c ${m[1]} sets a command git will run`);
      run.shells.push(m[2]!.replace(/^!/, ""));
    }
  }
  return true;
}

/** git subcommands that run a command: `submodule foreach CMD`, `bisect run CMD`, `rebase --exec CMD`. */
function gitRuns(words: ShellWord[], run: CodeRun): void {
  const g = gitSplit(words.slice(1).map((w) => w.value));
  const rest = words.slice(words.length - g.rest.length);
  const vals = g.rest;
  if (g.sub === "submodule" && vals.includes("foreach")) {
    flag(run, "git submodule foreach runs a command in every submodule");
    const k = vals.indexOf("foreach");
    const cmd = rest.slice(k + 1).filter((w, i) => i > 0 || !w.value.startsWith("-"));
    const body = cmd[0]?.value === "--recursive" ? cmd.slice(1) : cmd;
    if (body.length) run.shells.push(body.map((w) => w.value).join(" "));
  } else if (g.sub === "bisect" && vals[0] === "run") {
    flag(run, "git bisect run runs a command");
    if (rest.length > 1) run.inner.push(rest.slice(1));
  } else if (g.sub === "rebase") {
    for (let k = 0; k < vals.length; k++) {
      const v = vals[k]!;
      const str = v === "-x" || v === "--exec" ? vals[k + 1] : v.startsWith("--exec=") ? v.slice(7) : /^-x./.test(v) ? v.slice(2) : undefined;
      if (str === undefined) continue;
      flag(run, "git rebase --exec runs a command");
      run.shells.push(str);
    }
  }
}

function evalString(_name: string, words: ShellWord[], run: CodeRun, ctx: RunContext): boolean {
  flag(run, "eval runs a string as a command");
  // The shell expands eval's words first: `cmd="rm -rf x"; eval "$cmd"`, `eval "$a $b"`, `eval $(echo rm) -rf x`.
  pushStrings(run, words.slice(1), ctx);
  return true;
}

/**
 * A string the shell runs, from words the outer shell expands first: their known value (variables set
 * literally earlier, `$(echo …)`), else the text as written and the best guess with unknown variables empty.
 */
function pushStrings(run: CodeRun, words: readonly ShellWord[], ctx: RunContext): void {
  const asWritten = words.map((w) => w.value).join(" ");
  if (!ctx.env || !words.some((w) => w.dynamic)) {
    run.shells.push(asWritten);
    return;
  }
  const env = ctx.env;
  const known = words.map((w) => staticValue(w, env));
  if (known.every((v) => v !== undefined)) {
    run.shells.push(known.join(" "));
    return;
  }
  run.shells.push(asWritten);
  const guess = words.map((w) => staticValue(w, env, true) ?? "").join(" ");
  if (guess.trim() && guess !== asWritten) run.shells.push(guess);
}

function source(name: string, words: ShellWord[], run: CodeRun, ctx: RunContext): boolean {
  flag(run, `${name} runs a script in this shell`);
  const script = procText(words[1]);
  if (script !== undefined) run.shells.push(script);
  else if (ctx.stdin !== undefined && /^\/dev\/(stdin|fd\/0)$/.test(words[1]?.value ?? "")) run.shells.push(ctx.stdin);
  return true;
}

function exec(_name: string, words: ShellWord[], run: CodeRun): boolean {
  flag(run, "exec replaces the shell with another command");
  const rest = skipOptions(words, 1, "a");
  if (rest.length) run.inner.push(rest);
  return true;
}

function find(_name: string, words: ShellWord[], run: CodeRun): boolean {
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (/^-(exec|execdir|ok|okdir)$/.test(v)) {
      flag(run, `find ${v} runs a command`);
      const end = words.findIndex((x, m) => m > k && (x.value === ";" || x.value === "+"));
      const found = findCandidate(words);
      run.inner.push(words.slice(k + 1, end < 0 ? undefined : end).map((w) => (w.value === "{}" ? found : w)));
    } else if (v === "-delete") {
      flag(run, "find -delete deletes files");
      const starts = words.slice(1).filter((x) => !x.value.startsWith("-") && !x.value.startsWith("(") && !x.value.startsWith("!"));
      run.inner.push([lit("rm"), ...starts.slice(0, 1)]);
    } else if (/^-(fprint|fprint0|fprintf|fls)$/.test(v)) {
      flag(run, `find ${v} writes a file`);
    }
  }
  return true;
}

/**
 * What `{}` stands for in `find … -exec`: with a literal `-name`/`-path`, the files it can find
 * (a glob under the start directory, so Read rules see `./**\/.env`); otherwise unknown.
 */
function findCandidate(words: ShellWord[]): ShellWord {
  const starts = [];
  for (let k = 1; k < words.length && !words[k]!.value.startsWith("-") && !/^[!(]$/.test(words[k]!.value); k++) starts.push(words[k]!.value);
  const n = words.findIndex((w) => /^-(name|iname|path|ipath|wholename)$/.test(w.value));
  const pat = n > 0 ? words[n + 1] : undefined;
  if (!pat || pat.dynamic) return { value: "{}", raw: "{}", dynamic: true, quoted: false };
  const start = (starts[0] ?? ".").replace(/\/+$/, "");
  const value = /path|wholename/.test(words[n]!.value) ? pat.value : `${start}/**/${pat.value}`;
  return { value, raw: "{}", dynamic: false, quoted: false };
}

/** Only reached when xargs had flags (bare xargs is a wrapper). */
function xargs(_name: string, words: ShellWord[], run: CodeRun): boolean {
  // `xargs --version` / `--help` print and run nothing.
  if (words.length > 1 && words.slice(1).every((w) => w.value === "--version" || w.value === "--help")) return true;
  flag(run, "xargs with options runs a command built from its input");
  const cmd = skipOptions(words, 1, "IiLlnPsdEeaR", XARGS_LONG);
  run.inner.push(cmd);
  (run.piped ??= new Set()).add(cmd);
  return true;
}

const XARGS_LONG = ["arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"];

function watch(_name: string, words: ShellWord[], run: CodeRun): boolean {
  if (words.length <= 1) return false;
  flag(run, "watch runs its arguments through a shell");
  run.shells.push(skipOptions(words, 1, "nq", ["interval", "differences", "chgexit", "equexit", "errexit"]).map((w) => w.value).join(" "));
  return true;
}

/**
 * GNU parallel: the command (words, or one string run by a shell) before `:::`/`::::`, run once per
 * argument after it — `parallel rm -rf ::: build` runs `rm -rf build`.
 */
function parallel(_name: string, words: ShellWord[], run: CodeRun): boolean {
  flag(run, "parallel runs a command built from its arguments");
  const cmd = skipOptions(words, 1, "jaSIdEJ", ["jobs", "arg-file", "sshlogin", "delimiter", "replace", "joblog", "results", "timeout", "tmpdir"]);
  const sep = cmd.findIndex((w) => /^:::+$/.test(w.value));
  const body = sep < 0 ? cmd : cmd.slice(0, sep);
  const args = sep < 0 ? [] : cmd.slice(sep + 1).filter((w) => !/^:::+$/.test(w.value));
  const fill = (ws: ShellWord[], a?: ShellWord) => (ws.some((w) => w.value.includes("{}")) || !a ? ws.map((w) => (a ? { ...w, value: w.value.split("{}").join(a.value) } : w)) : [...ws, a]);
  for (const a of args.length ? args : [undefined]) {
    if (body.length === 1 && /\s/.test(body[0]!.value)) run.shells.push(fill(body, a)[0]!.value);
    else if (body.length) {
      const ws = fill(body, a);
      run.inner.push(ws);
      if (sep < 0) (run.piped ??= new Set()).add(ws);
    }
  }
  return true;
}

/**
 * Options of programs that run a shell string: `su -c CMD`, `runuser -u U -c CMD`, `script -qc CMD FILE`, in every
 * spelling getopt accepts (`-qc CMD`, `-cCMD`, `--command CMD`, `--command=CMD`, `--comm=CMD`). Plain options first.
 */
const DASH_C: Record<string, { spec: string; keys: string[] }> = nullProto({
  su: { spec: "flmpPhV c: C: g: G: s: w: --command=>c --session-command=>C --login>l --preserve-environment>m --pty>P --fast>f --shell=>s --group=>g --supp-group=>G --whitelist-environment=>w --help --version", keys: ["c", "C"] },
  runuser: { spec: "flmpPhV c: C: g: G: s: u: w: --command=>c --session-command=>C --login>l --preserve-environment>m --pty>P --fast>f --shell=>s --group=>g --supp-group=>G --user=>u --whitelist-environment=>w --help --version", keys: ["c", "C"] },
  script: { spec: "aefqhV c: E: I: O: B: T: m: t:: --command=>c --append>a --return>e --flush>f --force --quiet>q --echo=>E --log-in=>I --log-out=>O --log-io=>B --log-timing=>T --logging-format=>m --timing=?>t --output-limit= --help --version", keys: ["c"] },
});

/** `su -c`, `runuser -c`, `script -c` (and BSD `script [-q] FILE CMD…`): the string or words they run. */
function dashC(name: string, words: ShellWord[], run: CodeRun, ctx: RunContext): boolean {
  const spec = DASH_C[name]!;
  const p = parseArgs(grammar(spec.spec), words.slice(1).map((w) => w.value));
  const cmds = p.opts.filter((o) => spec.keys.includes(o.k) && o.v !== undefined);
  for (const o of cmds) {
    flag(run, `${name} ${o.raw.split(" ")[0]} runs a shell command`);
    const w = o.vi !== undefined ? words[o.vi + 1] : undefined;
    // an attached value (`-cCMD`, `--command=CMD`) is the word's tail; a separate word is expanded like any other
    if (w && w.value === o.v) pushStrings(run, [w], ctx);
    else run.shells.push(o.v!);
  }
  // BSD/macOS `script -q /dev/null rm -rf x` runs the words after the log file; `runuser -u U [--] CMD…` runs CMD.
  const from = name === "script" ? 1 : name === "runuser" && p.opts.some((o) => o.k === "u") ? 0 : -1;
  if (!cmds.length && from >= 0 && p.operands.length > from) {
    flag(run, `${name} runs the command ${from ? "after its log file" : "it is given"}`);
    run.inner.push(words.slice(p.operandIdx[from]! + 1));
    return true;
  }
  return cmds.length > 0;
}

/** `busybox APPLET ARGS…` is `APPLET ARGS…` (`busybox rm -rf x`, `busybox sh -c …`); a shell applet reads its input too. */
function busybox(_name: string, words: ShellWord[], run: CodeRun, ctx: RunContext): boolean {
  const k = words.findIndex((w, i) => i > 0 && !w.value.startsWith("-"));
  if (k < 0) return true;
  const applet = words.slice(k);
  const name = applet[0]!.dynamic ? "" : applet[0]!.value.replace(/^.*\//, "");
  flag(run, `busybox runs its ${name || "computed"} applet`);
  if (SHELLS.has(name) || name === "hush") shellRunner(name, applet, run, ctx);
  else run.inner.push(applet);
  return true;
}

function ssh(_name: string, words: ShellWord[], run: CodeRun): boolean {
  if (words.length <= 2) return false;
  const rest = skipOptions(words, 1, "bcDEeFIiJLlmOopQRSWw").slice(1);
  if (rest.length) {
    flag(run, "ssh runs a command on another machine");
    run.shells.push(rest.map((w) => w.value).join(" "));
  }
  return true;
}

/** Programs in EXEC_THROUGH (`sudo`, `npx`, `flock` …): the rest of their arguments is a command. */
function execThrough(name: string, words: ShellWord[], run: CodeRun): boolean {
  if (!EXEC_THROUGH[name] || words.length <= 1) return false;
  const spec = EXEC_THROUGH[name]!;
  const rest = skipOptions(words, 1, spec.opts ?? "", spec.long).slice(spec.skip);
  const str = shellString(words, name === "flock" || name === "npx");
  if (str !== undefined) run.shells.push(str);
  else if (rest.length) run.inner.push(rest);
  return true;
}

/** The string of a `-c STR` / `--call=STR` option (`npx -c 'rm x'`, `flock f -c 'rm x'`). */
function shellString(words: ShellWord[], enabled: boolean): string | undefined {
  if (!enabled) return undefined;
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if ((v === "-c" || v === "--call") && words[k + 1]) return words[k + 1]!.value;
    if (v.startsWith("--call=")) return v.slice(7);
  }
  return undefined;
}

/** Two-word heads in EXEC_THROUGH2 (`npm exec`, `docker exec CONTAINER` …). */
function execThrough2(name: string, words: ShellWord[], run: CodeRun): boolean {
  if (words.length <= 2 || !EXEC_THROUGH2[`${name} ${words[1]!.value}`]) return false;
  const spec = EXEC_THROUGH2[`${name} ${words[1]!.value}`]!;
  let rest = words.slice(2);
  const dd = rest.findIndex((w) => w.value === "--");
  if (spec.afterDashDash && dd >= 0) rest = rest.slice(dd + 1);
  else rest = skipOptions(rest, 0, "p", ["package"]).slice(spec.skip);
  const str = name === "npm" ? shellString(words, true) : undefined;
  if (str !== undefined) run.shells.push(str);
  else if (rest.length) run.inner.push(rest);
  return true;
}

/** sed's `e CMD` runs CMD in a shell; `e` alone and `s///e` run the text being edited (grammars/sed.ts). */
function sed(_name: string, words: ShellWord[], run: CodeRun): boolean {
  const a = sedArgs(words.map((w) => w.value));
  const script = sedScript(a.scripts.join("\n"));
  if (script.runs.length || /runs/.test(script.why ?? "")) flag(run, `sed: ${script.why}`);
  run.shells.push(...script.runs);
  return true;
}

/** Named programs, tried after the shells and before the EXEC_THROUGH tables. */
const PROGRAMS: Record<string, ProgramHandler> = {
  git,
  eval: evalString,
  source,
  ".": source,
  exec,
  find,
  xargs,
  watch,
  parallel,
  su: dashC,
  script: dashC,
  runuser: dashC,
  busybox,
  ssh,
  sed,
};

/** Record in `run` what the command `words` (program `name`, "" when computed) runs besides itself. */
export function runsCode(name: string, words: ShellWord[], run: CodeRun, ctx: RunContext = {}): void {
  if (SHELLS.has(name) && name !== "busybox") {
    shellRunner(name, words, run, ctx);
    return;
  }
  const handler = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : undefined;
  if (handler?.(name, words, run, ctx)) return;
  if (execThrough(name, words, run)) return;
  execThrough2(name, words, run);
}

/**
 * Skip options (and the values of short options in `argOpts` and of long options in `longArgs`, which
 * may be abbreviated) starting at `from`; stops at `--` or the first operand.
 */
export function skipOptions(ws: ShellWord[], from: number, argOpts: string, longArgs: readonly string[] = []): ShellWord[] {
  let k = from;
  while (k < ws.length) {
    const a = ws[k]!.value;
    if (a === "--") return ws.slice(k + 1);
    if (!a.startsWith("-") || a === "-") break;
    if (!a.startsWith("--") && a.length === 2 && argOpts.includes(a[1]!)) k += 2;
    else if (a.startsWith("--") && !a.includes("=") && a.length > 3 && longArgs.some((l) => l.startsWith(a.slice(2)))) k += 2;
    else k++;
  }
  return ws.slice(k);
}

export function lit(value: string): ShellWord {
  return { value, raw: value, dynamic: false, quoted: false };
}
