/**
 * What toolhost knows about common commands: wrappers, shells, exec-through programs, read-only
 * commands, file readers and writers, flag synonyms. Tables, plus the two functions that read them
 * for file operands and read-only-ness.
 */
import type { PathRef, ShellWord } from "./words.ts";
import { readOnlyVerdict } from "./grammars/readonly.ts";
import { sedArgs, sedBackup, sedScript, sedUnsafe } from "./grammars/sed.ts";
import { nullProto } from "../null-proto.ts";

/** Variables that may prefix an allowed command without being named in the rule. */
export const SAFE_ENV = new Set(
  "CI NODE_ENV DEBUG LANG LANGUAGE LC_ALL LC_CTYPE LC_MESSAGES TZ NO_COLOR FORCE_COLOR TERM COLUMNS LINES RUST_BACKTRACE RUST_LOG PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE GOOS GOARCH CGO_ENABLED VERBOSE TMPDIR".split(" "),
);

export const WRAPPERS = new Set(["timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob", "env", "xargs"]);
export const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox"]);
/** Programs that run the rest of their arguments as a command. value = positionals to skip before it. */
export const EXEC_THROUGH: Record<string, { skip: number; opts?: string; long?: string[] }> = nullProto({
  sudo: { skip: 0, opts: "ugh pCDrtUT", long: ["user", "group", "host", "prompt", "chdir", "close-from", "role", "type", "other-user", "command-timeout", "chroot"] },
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
  npx: { skip: 0, opts: "pc", long: ["package", "call"] },
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
});
/** Two-word heads that run a command: "npm exec", "docker exec CONTAINER" … */
export const EXEC_THROUGH2: Record<string, { skip: number; afterDashDash?: boolean }> = nullProto({
  "npm exec": { skip: 0 },
  "npm x": { skip: 0 },
  "bun x": { skip: 0 },
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
});
/** Programs whose later words are data, never commands (no "suspect" scan). */
export const DATA_HEADS = new Set(
  "echo printf grep egrep fgrep rg ag ack man which type whatis apropos help info tldr git npm yarn pnpm cargo go make docker podman kubectl gh brew apt apt-get pip pip3 curl wget jq yq sed awk test [ [[ cat head tail less more wc sort uniq cut tr ls find cd pwd true false set export declare local readonly unset alias".split(" "),
);

/** Programs the read-only model knows (grammars/readonly.ts has each one's allowed options and operand roles). */
export const READ_ONLY = new Set(
  "ls cat echo printf pwd head tail grep egrep fgrep rg wc which type diff cmp stat du df file tree basename dirname realpath readlink date whoami id uname hostname true false test [ seq nl tac jq cut tr column md5sum sha1sum sha256sum sha512sum cksum strings od hexdump less more cd printenv comm find sort uniq xxd env".split(" "),
);
export const GIT_READ_ONLY = new Set("status log diff show rev-parse ls-files ls-tree blame describe shortlog reflog cat-file grep whatchanged merge-base show-ref count-objects version help".split(" "));

/** Readers: which operands are file paths. `pattern`: the first operand is a pattern/script. `argOpts`: short options taking a value. */
export const READERS: Record<string, { pattern?: boolean; argOpts?: string; fileOpts?: string }> = nullProto({
  cat: {}, tac: {}, nl: { argOpts: "bdfhilnsvw" }, head: { argOpts: "nc" }, tail: { argOpts: "ncs" }, less: {}, more: {}, bat: { argOpts: "lrH" }, batcat: { argOpts: "lrH" },
  view: {}, od: { argOpts: "AjNtw" }, xxd: { argOpts: "cglos" }, hexdump: { argOpts: "enfs" }, strings: { argOpts: "nte" }, base64: { argOpts: "w" },
  md5sum: {}, sha1sum: {}, sha256sum: {}, sha512sum: {}, cksum: {}, wc: {}, sort: { argOpts: "kto" , fileOpts: "" }, uniq: { argOpts: "fsw" }, cut: { argOpts: "bcdf" },
  file: {}, stat: { argOpts: "c" }, diff: {}, cmp: {}, comm: {}, paste: { argOpts: "d" }, column: { argOpts: "stc" }, fold: { argOpts: "w" }, fmt: { argOpts: "w" },
  grep: { pattern: true, argOpts: "efmABCD", fileOpts: "f" }, egrep: { pattern: true, argOpts: "efmABCD", fileOpts: "f" }, fgrep: { pattern: true, argOpts: "efmABCD", fileOpts: "f" },
  rg: { pattern: true, argOpts: "efgmABCtTMj", fileOpts: "f" }, ag: { pattern: true, argOpts: "ABCGm" }, ack: { pattern: true },
  sed: { pattern: true, argOpts: "efl", fileOpts: "f" }, awk: { pattern: true, argOpts: "fvF", fileOpts: "f" }, gawk: { pattern: true, argOpts: "fvF", fileOpts: "f" },
  jq: { pattern: true, argOpts: "", fileOpts: "" }, yq: { pattern: true },
  ls: { argOpts: "IwT" }, tree: { argOpts: "LIP" }, du: { argOpts: "dB" }, find: {}, source: {}, ".": {}, rev: {}, tar: {}, zcat: {}, gzip: {}, bzcat: {}, xzcat: {}, zless: {}, zgrep: { pattern: true, argOpts: "efmABC" },
});
/** Commands whose operands are written (Edit rules): value = which operands. */
export const WRITERS: Record<string, "all" | "last" | "rest"> = nullProto({ tee: "all", touch: "all", mkdir: "all", rm: "all", rmdir: "all", truncate: "all", mv: "all", cp: "last", ln: "last", install: "last", chmod: "rest", chown: "rest", chgrp: "rest", shred: "all", unlink: "all" });
export const EDIT_OPS = new Set(["mkdir", "touch", "mv", "cp"]);
/** Whether a command is an edit that acceptEdits approves inside the working directories (`mkdir touch mv cp`, a harmless `sed -i`). */
export function editCommand(name: string, vals: readonly string[]): boolean {
  return EDIT_OPS.has(name) || (name === "sed" && sedInPlaceEdit(vals));
}


export const NULL_DEVICES = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/** Whether the command (program name and word values, after wrappers) is read-only in the read-only model (grammars/readonly.ts). */
export function readOnlyCommand(name: string, vals: string[]): boolean {
  return !!readOnlyVerdict(name, vals)?.ok;
}

export function fileArgs(name: string, words: ShellWord[], dir: string): { reads: PathRef[]; writes: PathRef[] } {
  const reads: PathRef[] = [];
  const writes: PathRef[] = [];
  if (name === "sed") return sedFileArgs(words, dir);
  const rd = READERS[name];
  const wr = WRITERS[name];
  if (!rd && !wr && name !== "dd") return { reads, writes };
  const operands: ShellWord[] = [];
  let patternGiven = false;
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
        continue;
      }
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
  if (rd) reads.push(...ops.map((w) => ref(w, dir)));
  if (wr) {
    const pick = wr === "all" ? operands : wr === "last" ? operands.slice(-1) : operands.slice(1);
    writes.push(...pick.map((w) => ref(w, dir)));
    if (wr === "last") reads.push(...operands.slice(0, -1).map((w) => ref(w, dir)));
  }
  if ((name === "uniq" || name === "xxd") && ops.length > 1) writes.push(ref(ops[1]!, dir));
  return { reads: reads.filter((r) => r.path !== "-" && !NULL_DEVICES.test(r.path)), writes: writes.filter((r) => !NULL_DEVICES.test(r.path)) };
}

/**
 * sed's paths (grammars/sed.ts): file operands and `-f` scripts are read; with `-i`/`--in-place` (any
 * spelling: `-i.bak`, `-ni`, `--in-pl`, after the script) the file operands and their backups are written.
 */
function sedFileArgs(words: ShellWord[], dir: string): { reads: PathRef[]; writes: PathRef[] } {
  const s = sedArgs(words.map((w) => w.value));
  const files = s.files.map((i) => ref(words[i]!, dir));
  const reads = [...files, ...s.scriptFiles.map((f) => ({ ...ref(words[f.i]!, dir), path: f.path }))];
  const writes: PathRef[] = [];
  // `w FILE`, `s///w FILE` write FILE; `r FILE` copies FILE into the output (the script's own file names).
  const script = sedScript(s.scripts.join("\n"));
  const named = (p: string): PathRef => ({ path: p, base: dir, dynamic: words.some((w) => w.dynamic && w.value.includes(p)), glob: false });
  writes.push(...script.writes.filter(Boolean).map(named));
  reads.push(...script.reads.filter((p) => p && p !== "/dev/stdin").map(named));
  if (s.inPlace) {
    for (const f of files) {
      writes.push(f);
      const b = sedBackup(f.path, s.suffix);
      if (b) writes.push({ ...f, path: b });
    }
  }
  return { reads: reads.filter((r) => r.path !== "-" && !NULL_DEVICES.test(r.path)), writes: writes.filter((r) => !NULL_DEVICES.test(r.path)) };
}

/**
 * `sed -i SCRIPT FILE…` whose options and script are harmless (no `w`, `e`, `r`, `-f` …; see
 * grammars/sed.ts): an edit of its file operands, approved in acceptEdits like Edit.
 */
export function sedInPlaceEdit(vals: readonly string[]): boolean {
  const s = sedArgs(vals);
  return s.inPlace && s.files.length > 0 && !sedUnsafe(s);
}

function ref(w: ShellWord, base: string): PathRef {
  return { path: w.value, base, dynamic: w.dynamic, glob: !w.quoted && /[*?[]/.test(w.value) };
}
