/**
 * The shell parser's fast path: a hand-written tokenizer for the command lines agents send most —
 * simple commands joined by `&&`, `||`, `;`, `|` and newlines, words with single and double quotes,
 * backslash escapes, `$NAME`, `${NAME}`, `$(…)` (parsed the same way, recursively), leading
 * `NAME=value` assignments and the redirections `< > >> >| >& &> &>>` (with an fd number). mvdan-sh's
 * GopherJS parse is most of the cost of a new command text; this gives exactly what the full parse
 * (shell.ts parseFull) gives — the same commands in the same order, the same words, parts and
 * redirections — and declines (returns undefined) anything else: subshells, `{ }` blocks, reserved
 * words and declarations as a command name, here-docs and here-strings, `&`, `|&`, backticks,
 * arithmetic, other parameter expansions, `$'…'`, comments, control characters, a pipe from
 * `echo`/`printf` (its literal output becomes the next command's stdin). The equivalence is
 * property-tested against the full parser (test/permissions/shell-fast-path.test.ts).
 */
import type { ShellAnalysis, ShellRedirect, ShellWord, SimpleCommand, WordPart } from "./words.ts";

/** Words that are not a plain command name to the parser (compound commands, declarations, `time`, `let` …). */
const NOT_A_NAME = new Set("if then else elif fi for while until do done case esac in function select time coproc let export declare local readonly typeset nameref ! { } [[ ]]".split(" "));
/** Characters that end an unquoted run of a word. */
const META = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">", "'", '"', "$", "`", "\\"]);
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*=/;
const ARRAY_REF = /^[A-Za-z_][A-Za-z0-9_]*\[/;

/** Thrown (and caught by parseQuick) when the tokenizer is not sure: the full parser decides. */
const DECLINE = new Error("decline");

type Part = { k: "lit"; v: string } | { k: "sgl"; v: string } | { k: "dbl"; parts: Part[] } | { k: "dyn"; src: string; part: WordPart };

interface Lexed {
  word: ShellWord;
  /** Commands inside its `$(…)`, in the full parser's order. */
  inner: SimpleCommand[];
}

export function parseQuick(src: string): ShellAnalysis | undefined {
  if (src.length > 4000 || /[\x00-\x08\x0b-\x1f\x7f]/.test(src)) return undefined;
  try {
    const q = new Quick(src);
    const commands = q.list(0);
    if (q.i < src.length || !commands.length) return undefined;
    return { ok: true, commands, redirects: [] };
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}

class Quick {
  i = 0;
  constructor(readonly s: string) {}

  /** A list of simple commands up to the end (depth 0) or an unmatched `)` (inside `$(…)`). */
  list(depth: number): SimpleCommand[] {
    if (depth > 8) throw DECLINE;
    const out: SimpleCommand[] = [];
    let lastOp = ";";
    for (;;) {
      this.blanks();
      const c = this.s[this.i];
      if (c === undefined || c === ")") {
        if (depth === 0 ? c === ")" : c === undefined) throw DECLINE;
        if (lastOp !== ";" && lastOp !== "\n") throw DECLINE;
        return out;
      }
      if (c === "\n") {
        this.i++;
        if (lastOp === ";") lastOp = "\n";
        continue;
      }
      const { cmd, inner } = this.command(depth);
      out.push(cmd, ...inner);
      const op = this.operator();
      if (op === undefined) {
        lastOp = ";";
        continue;
      }
      // `echo 'rm -rf x' | sh`: the full parser gives the next command the literal as its stdin
      if (op === "|" && printsLiteral(cmd)) throw DECLINE;
      lastOp = op;
      if (op === "&&" || op === "||" || op === "|") {
        // a newline may follow these operators; the next command must come
        while (this.s[this.i] === " " || this.s[this.i] === "\t" || this.s[this.i] === "\n") this.i++;
        const n = this.s[this.i];
        if (n === undefined || n === ")" || n === ";" || n === "&" || n === "|") throw DECLINE;
      }
    }
  }

  /** After a command: `&&`, `||`, `|`, `;` (consumed), a newline or `)` or the end (not consumed, undefined). */
  operator(): string | undefined {
    const s = this.s;
    const c = s[this.i];
    if (c === undefined || c === "\n" || c === ")") return undefined;
    const two = s.slice(this.i, this.i + 2);
    if (two === "&&" || two === "||") {
      this.i += 2;
      return two;
    }
    if (c === "|" && s[this.i + 1] !== "&") {
      this.i++;
      return "|";
    }
    if (c === ";" && s[this.i + 1] !== ";" && s[this.i + 1] !== "&") {
      this.i++;
      return ";";
    }
    throw DECLINE;
  }

  /** Blanks, and line continuations (a backslash-newline between words). */
  blanks(): void {
    const s = this.s;
    for (;;) {
      const c = s[this.i];
      if (c === " " || c === "\t") this.i++;
      else if (c === "\\" && s[this.i + 1] === "\n") this.i += 2;
      else return;
    }
  }

  /** One simple command: assignments, words and redirections, up to an operator. */
  command(depth: number): { cmd: SimpleCommand; inner: SimpleCommand[] } {
    const assigns: SimpleCommand["assigns"] = [];
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [];
    const innerA: SimpleCommand[] = [];
    const innerW: SimpleCommand[] = [];
    const innerR: SimpleCommand[] = [];
    for (;;) {
      this.blanks();
      const c = this.s[this.i];
      if (c === undefined || c === "\n" || c === ";" || c === "|" || c === ")" || (c === "&" && this.s[this.i + 1] === "&")) break;
      const r = this.redirect(depth);
      if (r) {
        redirects.push(r.redirect);
        innerR.push(...r.inner);
        continue;
      }
      if (c === "#" || c === "(" || c === "&" || c === "<" || c === ">") throw DECLINE;
      const start = this.i;
      const w = this.word(depth);
      if (!words.length && ASSIGN.test(w.word.raw)) {
        // `NAME=value` before the command name: the value must be a plain word (no `=(…)` arrays, `+=`, `[i]=`).
        const name = w.word.raw.slice(0, w.word.raw.indexOf("="));
        assigns.push({ name, raw: this.s.slice(start, this.i) });
        innerA.push(...w.inner);
        continue;
      }
      // (`a[i]` before a command name is an array element to the parser)
      if (!words.length && (NOT_A_NAME.has(w.word.value) || w.word.raw.includes("=") || ARRAY_REF.test(w.word.raw))) throw DECLINE;
      words.push(w.word);
      innerW.push(...w.inner);
    }
    if (!words.length && !assigns.length && !redirects.length) throw DECLINE;
    return { cmd: { assigns, words, redirects }, inner: [...innerA, ...innerW, ...innerR] };
  }

  /** A redirection at the cursor (`2>&1`, `> f`, `&>> log`, `< in`), or undefined (cursor unchanged). */
  redirect(depth: number): { redirect: ShellRedirect; inner: SimpleCommand[] } | undefined {
    const s = this.s;
    let j = this.i;
    while (s[j]! >= "0" && s[j]! <= "9") j++;
    const fd = j > this.i ? s.slice(this.i, j) : undefined;
    const c = s[j];
    let op: string;
    if (c === ">") {
      const n = s[j + 1];
      op = n === ">" ? ">>" : n === "|" ? ">|" : n === "&" ? ">&" : ">";
      if (n === "(") throw DECLINE;
    } else if (c === "<") {
      const n = s[j + 1];
      if (n === "<" || n === "(" || n === "&" || n === ">") throw DECLINE;
      op = "<";
    } else if (c === "&" && s[j + 1] === ">" && !fd) {
      op = s[j + 2] === ">" ? "&>>" : "&>";
    } else return undefined;
    this.i = j + op.length;
    this.blanks();
    const t = s[this.i];
    if (t === undefined || META.has(t) && t !== "'" && t !== '"' && t !== "$" && t !== "\\") throw DECLINE;
    if (t === "#") throw DECLINE;
    const w = this.word(depth);
    const redirect: ShellRedirect = fd === undefined ? { op, target: w.word } : { op, fd, target: w.word };
    return { redirect, inner: w.inner };
  }

  /** One word at the cursor (at least one character). */
  word(depth: number): Lexed {
    const s = this.s;
    const start = this.i;
    const parts: Part[] = [];
    const inner: SimpleCommand[] = [];
    for (;;) {
      const c = s[this.i];
      if (c === undefined || c === " " || c === "\t" || c === "\n" || c === ";" || c === "&" || c === "|" || c === "(" || c === ")" || c === "<" || c === ">") break;
      if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        if (end < 0) throw DECLINE;
        parts.push({ k: "sgl", v: s.slice(this.i + 1, end) });
        this.i = end + 1;
      } else if (c === '"') {
        this.i++;
        parts.push({ k: "dbl", parts: this.dquoted(depth, inner) });
      } else if (c === "$") {
        parts.push(this.dollar(depth, inner));
      } else if (c === "`") throw DECLINE;
      else {
        // a `#` after a quote or an expansion starts a comment to the parser
        if (c === "#") throw DECLINE;
        const from = this.i;
        for (;;) {
          const d = s[this.i];
          if (d === undefined || META.has(d)) {
            if (d !== "\\") break;
            if (this.i + 1 >= s.length || s[this.i + 1] === "\n") throw DECLINE;
            this.i += 2;
            continue;
          }
          this.i++;
        }
        parts.push({ k: "lit", v: s.slice(from, this.i) });
      }
    }
    // a number touching `<`, `>` or `&` is a file descriptor to the parser (`> 2<f`)
    if (this.i === start || (/^\d+$/.test(s.slice(start, this.i)) && /[<>&]/.test(s[this.i] ?? ""))) throw DECLINE;
    return { word: toWord(parts, s.slice(start, this.i)), inner };
  }

  /** The inside of `"…"` (cursor after the opening quote; leaves it after the closing one). */
  dquoted(depth: number, inner: SimpleCommand[]): Part[] {
    const s = this.s;
    const parts: Part[] = [];
    let from = this.i;
    const flush = () => {
      if (this.i > from) parts.push({ k: "lit", v: s.slice(from, this.i) });
    };
    for (;;) {
      const c = s[this.i];
      if (c === undefined || c === "`") throw DECLINE;
      if (c === '"') {
        flush();
        this.i++;
        return parts;
      }
      if (c === "\\") {
        // (a backslash-newline splits the parser's literal: left to it)
        if (this.i + 1 >= s.length || s[this.i + 1] === "\n") throw DECLINE;
        this.i += 2;
      } else if (c === "$") {
        flush();
        parts.push(this.dollar(depth, inner));
        from = this.i;
      } else this.i++;
    }
  }

  /** `$NAME`, `${NAME}` or `$(…)` at the cursor; anything else declines. */
  dollar(depth: number, inner: SimpleCommand[]): Part {
    const s = this.s;
    const start = this.i;
    const n = s[this.i + 1];
    if (n === "(") {
      if (s[this.i + 2] === "(") throw DECLINE;
      this.i += 2;
      const cmds = this.list(depth + 1);
      if (s[this.i] !== ")") throw DECLINE;
      this.i++;
      inner.push(...cmds);
      const text = s.slice(start, this.i);
      return { k: "dyn", src: text, part: { t: "subst", src: text.slice(2, -1) } };
    }
    const braced = n === "{";
    NAME.lastIndex = this.i + (braced ? 2 : 1);
    const m = NAME.exec(s);
    if (!m) throw DECLINE;
    this.i = NAME.lastIndex;
    if (braced) {
      if (s[this.i] !== "}") throw DECLINE;
      this.i++;
    }
    return { k: "dyn", src: s.slice(start, this.i), part: { t: "param", name: m[0] } };
  }
}

/** An `echo`/`printf` whose output is known (shell.ts literalPrint): what it pipes on is the next command's stdin. */
function printsLiteral(cmd: SimpleCommand): boolean {
  const name = cmd.words[0]?.value;
  return (name === "echo" || name === "printf") && !cmd.assigns.length && !cmd.words.some((w) => w.dynamic);
}

/** An unquoted literal's value (backslash escapes and line continuations removed); shared with shell.ts. */
export function unescapeUnquoted(s: string): string {
  return s.indexOf("\\") < 0 ? s : s.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
}

/** A literal inside double quotes: only `\$ \` \" \\` and backslash-newline are escapes; shared with shell.ts. */
export function dqText(v: string): string {
  return v.indexOf("\\") < 0 ? v : v.replace(/\\([$`"\\])/g, "$1").replace(/\\\n/g, "");
}

/** The word as the full parser reports it (shell.ts wordOf): value, raw, dynamic, quoted, parts, tilde. */
function toWord(parts: Part[], raw: string): ShellWord {
  let value = "";
  let dynamic = false;
  let quoted = false;
  for (const p of parts) {
    if (p.k === "lit") value += unescapeUnquoted(p.v);
    else if (p.k === "sgl") {
      quoted = true;
      value += p.v;
    } else if (p.k === "dbl") {
      quoted = true;
      for (const q of p.parts) {
        if (q.k === "lit") value += dqText(q.v);
        else {
          dynamic = true;
          value += (q as { src: string }).src;
        }
      }
    } else {
      dynamic = true;
      value += p.src;
    }
  }
  const first = parts[0];
  const tilde = first?.k === "lit" && first.v.startsWith("~");
  if (dynamic) {
    // (the parser splits an unquoted literal at `[`, a glob bracket: left to it)
    if (parts.some((p) => p.k === "lit" && p.v.includes("["))) throw DECLINE;
    const wp: WordPart[] = [];
    for (const p of parts) {
      if (p.k === "lit") wp.push({ t: "lit", v: unescapeUnquoted(p.v) });
      else if (p.k === "sgl") wp.push({ t: "lit", v: p.v });
      else if (p.k === "dbl") for (const q of p.parts) wp.push(q.k === "lit" ? { t: "lit", v: dqText(q.v) } : (q as { part: WordPart }).part);
      else wp.push(p.part);
    }
    return { value, raw, dynamic, quoted, parts: wp, tilde };
  }
  return tilde ? { value, raw, dynamic, quoted, tilde } : { value, raw, dynamic, quoted };
}
