/**
 * GNU sed, read the way sed itself reads it: the command line (options in any position, long
 * options by any unique prefix, `-i[SUFFIX]` taking the rest of its cluster as the backup suffix,
 * so `-ni` is `-n -i` while `-in` is `-i` with suffix `n`), then the script, command by command.
 *
 * What the permission engine needs from it:
 * - which operands are written: with `-i`/`--in-place` every file operand is rewritten (and a backup
 *   `FILE+SUFFIX` is made), so Edit rules and acceptEdits see an edit of those paths;
 * - whether the script is harmless: addresses, `s///` (flags g p N i I m M), `y///`, `d D p P n N
 *   g G h H x z l = q Q { } : b t T a i c F #` are; `w`/`W` (write a file), `r`/`R` (read one),
 *   `e` and the `s///e` / `s///w` flags (run a command / write a file), `-f` (a script we do not
 *   see) and anything not understood are not.
 */

export interface SedArgs {
  /** `-i`/`--in-place`: the file operands are rewritten. */
  inPlace: boolean;
  /** The backup suffix of `-iSUFFIX` / `--in-place=SUFFIX` ("" for none). */
  suffix: string;
  /** Script texts (`-e` values, or the first operand). */
  scripts: string[];
  /** Word indices (in the words given, 0 = `sed`) of file operands, and of `-f` script files (with the path when attached). */
  files: number[];
  scriptFiles: Array<{ i: number; path: string }>;
  /** The first option sed's command line has that this reading does not know. */
  unknown?: string;
}

type Kind = "flag" | "value" | "optional";
const LONG: Record<string, Kind> = {
  expression: "value", file: "value", "in-place": "optional", "line-length": "value", quiet: "flag", silent: "flag",
  "regexp-extended": "flag", separate: "flag", unbuffered: "flag", "null-data": "flag", "zero-terminated": "flag",
  posix: "flag", debug: "flag", sandbox: "flag", binary: "flag", "follow-symlinks": "flag", help: "flag", version: "flag",
};
const SHORT_FLAGS = "nrEsuzb";

function longName(name: string): string | undefined {
  if (Object.hasOwn(LONG, name)) return name;
  const hits = Object.keys(LONG).filter((k) => k.startsWith(name));
  // A prefix shared by several options (`--s`: silent, separate, sandbox) is ambiguous, as getopt says.
  return hits.length === 1 ? hits[0] : undefined;
}

/** Read sed's words (`words[0]` is the program). */
export function sedArgs(words: readonly string[]): SedArgs {
  const out: SedArgs = { inPlace: false, suffix: "", scripts: [], files: [], scriptFiles: [] };
  const operands: number[] = [];
  let end = false;
  let given = false;
  const script = (v: string | undefined, k: number, file: boolean) => {
    given = true;
    if (v === undefined) out.unknown ??= `${words[k]} without a value`;
    else if (file) out.scriptFiles.push({ i: k, path: v });
    else out.scripts.push(v);
  };
  for (let k = 1; k < words.length; k++) {
    const a = words[k]!;
    if (end || a === "-" || !a.startsWith("-")) {
      operands.push(k);
      continue;
    }
    if (a === "--") {
      end = true;
      continue;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = longName(eq < 0 ? a.slice(2) : a.slice(2, eq));
      const val = eq < 0 ? undefined : a.slice(eq + 1);
      if (!name) out.unknown ??= a;
      else if (name === "in-place") {
        out.inPlace = true;
        out.suffix = val ?? "";
      } else if (LONG[name] === "value") {
        const v = val ?? words[++k];
        if (name === "expression") script(v, k, false);
        else if (name === "file") script(v, k, true);
      } else if (val !== undefined) out.unknown ??= a;
      continue;
    }
    for (let c = 1; c < a.length; c++) {
      const ch = a[c]!;
      if (ch === "i") {
        out.inPlace = true;
        out.suffix = a.slice(c + 1);
        break;
      }
      if (ch === "e" || ch === "f" || ch === "l") {
        const attached = a.slice(c + 1);
        const v = attached || words[++k];
        if (ch !== "l") script(v, k, ch === "f");
        break;
      }
      if (!SHORT_FLAGS.includes(ch)) {
        out.unknown ??= `-${ch}`;
        break;
      }
    }
  }
  if (!given && operands.length) out.scripts.push(words[operands.shift()!]!);
  out.files = operands;
  return out;
}

/**
 * The backup file `sed -iSUFFIX` makes of `file`: `file` + SUFFIX, or with `*` in the suffix, the
 * suffix with each `*` replaced by the file name as given (GNU sed 4.9: `-i'bak/*'` on `sub/f` makes
 * `bak/sub/f`, relative to the working directory).
 */
export function sedBackup(file: string, suffix: string): string | undefined {
  if (!suffix) return undefined;
  return suffix.includes("*") ? suffix.replaceAll("*", file) : file + suffix;
}

/** What a script does besides transforming its input: files it writes (`w`, `W`, `s///w`) and reads (`r`, `R`), commands it runs (`e CMD`). */
export interface SedScript {
  /** Why the script is not harmless (the first reason), undefined when it is. */
  why?: string;
  writes: string[];
  reads: string[];
  /** Shell commands of `e CMD` (an `e` without one, or `s///e`, runs text computed at run time: only `why` says so). */
  runs: string[];
}

/** Why a sed script is not harmless (it writes, reads or runs something, or is not understood); undefined when it is. */
export function sedScriptUnsafe(src: string): string | undefined {
  return sedScript(src).why;
}

/** Read a sed script command by command, as GNU sed does. */
export function sedScript(src: string): SedScript {
  const out: SedScript = { writes: [], reads: [], runs: [] };
  const fail = (why: string): SedScript => {
    out.why ??= why;
    return out;
  };
  const note = (why: string) => {
    out.why ??= why;
  };
  let p = 0;
  const n = src.length;
  const at = () => src[p] ?? "";
  const spaces = () => {
    while (p < n && /[ \t]/.test(src[p]!)) p++;
  };
  /** A delimited part (`/re/`, the pieces of `s` and `y`); false when unterminated. */
  const part = (delim: string): boolean => {
    for (; p < n; p++) {
      const ch = src[p]!;
      if (ch === "\\") p++;
      else if (ch === delim) {
        p++;
        return true;
      } else if (ch === "\n") return false;
    }
    return false;
  };
  const address = (second: boolean): boolean | string => {
    const ch = at();
    if (/\d/.test(ch)) {
      while (/\d/.test(at())) p++;
      if (at() === "~") {
        p++;
        while (/\d/.test(at())) p++;
      }
      return true;
    }
    if (ch === "$") {
      p++;
      return true;
    }
    if (second && (ch === "+" || ch === "~")) {
      p++;
      if (!/\d/.test(at())) return "a bad address";
      while (/\d/.test(at())) p++;
      return true;
    }
    if (ch === "/" || ch === "\\") {
      const delim = ch === "/" ? "/" : src[++p];
      if (!delim || delim === "\n" || delim === "\\") return "a bad address";
      p++;
      if (!part(delim)) return "an unterminated address";
      while (at() === "I" || at() === "M") p++;
      return true;
    }
    return false;
  };
  /** To the end of the line (a/i/c text, with backslash-newline continuing it). */
  const toEol = () => {
    for (; p < n && src[p] !== "\n"; p++) if (src[p] === "\\") p++;
  };
  /** A file name or command: the rest of the line, leading blanks skipped. */
  const rest = (): string => {
    spaces();
    const from = p;
    while (p < n && src[p] !== "\n") p++;
    return src.slice(from, p);
  };
  /** A label or exit code: up to `;` or the end of the line. */
  const word = () => {
    while (p < n && src[p] !== ";" && src[p] !== "\n") p++;
  };
  while (p < n) {
    while (p < n && /[\s;]/.test(src[p]!)) p++;
    if (p >= n) break;
    if (at() === "#") {
      toEol();
      continue;
    }
    const a1 = address(false);
    if (typeof a1 === "string") return fail(a1);
    if (a1) {
      spaces();
      if (at() === ",") {
        p++;
        spaces();
        const a2 = address(true);
        if (a2 !== true) return fail(typeof a2 === "string" ? a2 : "a bad address");
      }
    }
    spaces();
    while (at() === "!") {
      p++;
      spaces();
    }
    const cmd = at();
    p++;
    switch (cmd) {
      case "{":
      case "}":
        continue;
      case "=": case "d": case "D": case "g": case "G": case "h": case "H": case "n": case "N": case "p": case "P": case "x": case "z": case "F":
        break;
      case "l": case "q": case "Q": case "L":
        spaces();
        while (/\d/.test(at())) p++;
        break;
      case ":": case "b": case "t": case "T":
        spaces();
        word();
        break;
      case "a": case "i": case "c":
        toEol();
        continue;
      case "v":
        word();
        break;
      case "s":
      case "y": {
        const delim = at();
        if (!delim || delim === "\n" || delim === "\\") return fail(`a bad ${cmd} command`);
        p++;
        if (!part(delim) || !part(delim)) return fail(`an unterminated ${cmd} command`);
        if (cmd === "y") break;
        for (;;) {
          const f = at();
          if (f === "e") note("the s///e flag runs the pattern space as a command");
          else if (f === "w") {
            p++;
            note("the s///w flag writes a file");
            out.writes.push(rest());
            break;
          } else if (!f || !/[gpiImM0-9]/.test(f)) break;
          p++;
        }
        break;
      }
      case "e": {
        const cmdText = rest();
        note(cmdText ? "the e command runs a command" : "the e command runs the pattern space as a command");
        if (cmdText) out.runs.push(cmdText);
        continue;
      }
      case "w":
      case "W":
        note(`the ${cmd} command writes a file`);
        out.writes.push(rest());
        continue;
      case "r":
      case "R":
        note(`the ${cmd} command reads a file into the output`);
        out.reads.push(rest());
        continue;
      default:
        return fail(`sed command ${JSON.stringify(cmd)} is not understood`);
    }
    spaces();
    const next = at();
    if (next && next !== ";" && next !== "\n" && next !== "}" && next !== "#") return fail(`unexpected ${JSON.stringify(next)} after a sed command`);
  }
  return out;
}

/** Why this sed command line is not a harmless script over its operands (undefined when it is). */
export function sedUnsafe(s: SedArgs): string | undefined {
  if (s.unknown) return `sed ${s.unknown} is not a known harmless option`;
  if (s.scriptFiles.length) return "sed -f runs a script from a file";
  if (!s.scripts.length) return "sed without a script";
  return sedScript(s.scripts.join("\n")).why;
}
