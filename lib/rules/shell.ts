/**
 * Shell parsing for Bash permission rules, with a real parser: mvdan-sh (the GopherJS build of
 * mvdan/sh). A command line becomes the flat list of every simple command it would run — in
 * `&& || ; | |& &` lists, newlines, subshells, `{ }` blocks, `$()` and backticks, if/for/while/case
 * bodies, function bodies, process substitutions, here-doc expansions — each with its words
 * (unquoted values, or source text for dynamic parts) and its redirections. The everyday command lines
 * are tokenized by hand first (shell-quick.ts, exactly equivalent where it accepts); mvdan-sh decides the rest.
 */
import { createRequire } from "node:module";
import type { ShellAnalysis, ShellRedirect, ShellWord, SimpleCommand, WordPart } from "./words.ts";
import { dqText, parseQuick, unescapeUnquoted } from "./shell-quick.ts";

export type { ShellAnalysis, ShellRedirect, ShellWord, SimpleCommand } from "./words.ts";
export { parseQuick } from "./shell-quick.ts";


const REDIR_OPS: Record<number, string> = {
  54: ">",
  55: ">>",
  56: "<",
  57: "<>",
  58: "<&",
  59: ">&",
  60: ">|",
  61: "<<",
  62: "<<-",
  63: "<<<",
  64: "&>",
  65: "&>>",
};

let shModule: any;
function sh(): any {
  if (!shModule) shModule = createRequire(import.meta.url)("mvdan-sh");
  return shModule;
}
let parser: any;

const cache = new Map<string, ShellAnalysis>();
const CACHE_MAX = 1000;

/** Parse once per distinct command text (LRU); the result is shared and must not be mutated. */
export function analyzeShell(src: string): ShellAnalysis {
  const hit = cache.get(src);
  if (hit) {
    cache.delete(src);
    cache.set(src, hit);
    return hit;
  }
  const a = analyzeUncached(src);
  cache.set(src, a);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return a;
}

/*
 * mvdan-sh's public JS wrappers externalize every field access (~10-100 µs each); walking the AST
 * through them costs milliseconds per command. We parse with the public API and then read the
 * GopherJS objects behind it (`__internal_object__`): plain JS objects, slices as {$array,$offset,
 * $length}, node types in `constructor.string`, strings as UTF-8 byte strings. The walk is generic
 * over every pointer field, so no node kind (here-doc bodies, parameter expansions …) is skipped.
 */
type GoNode = any;
const el = (sl: GoNode, i: number): GoNode => sl.$array[sl.$offset + i];
const typeOf = (n: GoNode): string | undefined => n?.constructor?.string;
const isNil = (n: GoNode): boolean => !n || typeof n !== "object" || n === n.constructor?.nil;
const goStr = (x: string): string => (/[\x80-\xff]/.test(x) ? Buffer.from(x, "latin1").toString("utf8") : x);

function walk(n: GoNode, visit: (n: GoNode, t: string) => void, depth = 0): void {
  if (isNil(n) || depth > 200) return;
  const t = typeOf(n);
  if (!t || !t.startsWith("*syntax.")) return;
  visit(n, t);
  for (const k of Object.keys(n)) {
    if (k === "$val") continue;
    const v = n[k];
    if (!v || typeof v !== "object") continue;
    if ("$array" in v && "$length" in v) for (let i = 0; i < v.$length; i++) walk(el(v, i), visit, depth + 1);
    else walk(v, visit, depth + 1);
  }
}

function analyzeUncached(src: string): ShellAnalysis {
  return parseQuick(src) ?? parseFull(src);
}

/** The full mvdan-sh parse (exported for the fast path's equivalence test). */
export function parseFull(src: string): ShellAnalysis {
  const { syntax } = sh();
  parser ??= syntax.NewParser();
  let file: GoNode;
  try {
    file = parser.Parse(src, "").__internal_object__;
  } catch (e: any) {
    const msg = typeof e?.Error === "function" ? e.Error() : e?.message ?? String(e);
    return { ok: false, error: `cannot parse shell command: ${msg}`, commands: [], redirects: [] };
  }
  const buf = Buffer.from(src, "utf8");
  const slice = (n: GoNode) => buf.subarray(n.Pos().offs, n.End().offs).toString("utf8");
  const commands: SimpleCommand[] = [];
  const redirects: ShellRedirect[] = [];
  const word = (w: GoNode): ShellWord => wordOf(w, slice);
  // Pipes whose left side prints a literal: the right side's first command reads it.
  const piped = new Map<GoNode, string>();
  walk(file, (node, t) => {
    if (t === "*syntax.BinaryCmd" && (node.Op === 12 || node.Op === 13)) {
      const out = literalPrint(node.X, word);
      if (out !== undefined && !isNil(node.Y) && typeOf(node.Y.Cmd) === "*syntax.CallExpr") piped.set(node.Y.Cmd, out);
    }
    if (t !== "*syntax.Stmt") return;
    const cmd = node.Cmd;
    const ct = isNil(cmd) ? "" : typeOf(cmd);
    const redirs: ShellRedirect[] = [];
    for (let i = 0; i < node.Redirs.$length; i++) {
      const r = el(node.Redirs, i);
      redirs.push({ op: REDIR_OPS[r.Op] ?? "?", fd: isNil(r.N) ? undefined : goStr(r.N.Value), target: word(r.Word) });
    }
    if (ct === "*syntax.CallExpr") {
      const assigns: SimpleCommand["assigns"] = [];
      for (let i = 0; i < cmd.Assigns.$length; i++) {
        const a = el(cmd.Assigns, i);
        assigns.push({ name: isNil(a.Name) ? "" : goStr(a.Name.Value), raw: slice(a) });
      }
      const words: ShellWord[] = [];
      for (let i = 0; i < cmd.Args.$length; i++) words.push(word(el(cmd.Args, i)));
      const stdin = stdinOf(node, word) ?? piped.get(cmd);
      commands.push(stdin === undefined ? { assigns, words, redirects: redirs } : { assigns, words, redirects: redirs, stdin });
    } else if (ct === "*syntax.DeclClause") {
      const variant = isNil(cmd.Variant) ? "declare" : goStr(cmd.Variant.Value);
      const words: ShellWord[] = [{ value: variant, raw: variant, dynamic: false, quoted: false }];
      const assigns: SimpleCommand["assigns"] = [];
      for (let i = 0; i < cmd.Args.$length; i++) {
        const a = el(cmd.Args, i);
        const raw = slice(a);
        if (!isNil(a.Name)) assigns.push({ name: goStr(a.Name.Value), raw });
        words.push({ value: raw, raw, dynamic: /[$`]/.test(raw), quoted: false });
      }
      commands.push({ assigns, words, redirects: redirs, decl: true });
    } else if (!ct && redirs.length) {
      // `$(< f)`: a statement that is only redirections (the shell reads f).
      commands.push({ assigns: [], words: [], redirects: redirs });
    } else if (redirs.length) redirects.push(...redirs);
  });
  return { ok: true, commands, redirects };
}

function wordOf(w: GoNode, slice: (n: GoNode) => string): ShellWord {
  if (isNil(w)) return { value: "", raw: "", dynamic: false, quoted: false };
  const raw = slice(w);
  let value = "";
  let dynamic = false;
  let quoted = false;
  for (let i = 0; i < w.Parts.$length; i++) {
    const p = el(w.Parts, i);
    switch (typeOf(p)) {
      case "*syntax.Lit":
        value += unescapeUnquoted(goStr(p.Value));
        break;
      case "*syntax.SglQuoted":
        quoted = true;
        value += p.Dollar ? ansiC(goStr(p.Value)) : goStr(p.Value);
        break;
      case "*syntax.DblQuoted":
        quoted = true;
        for (let j = 0; j < p.Parts.$length; j++) {
          const q = el(p.Parts, j);
          if (typeOf(q) === "*syntax.Lit") value += dqLit(q);
          else {
            dynamic = true;
            value += slice(q);
          }
        }
        break;
      default:
        dynamic = true;
        value += slice(p);
    }
  }
  const first = w.Parts.$length ? el(w.Parts, 0) : undefined;
  const tilde = !!first && typeOf(first) === "*syntax.Lit" && goStr(first.Value).startsWith("~");
  if (dynamic) return { value, raw, dynamic, quoted, parts: partsOf(w, slice), tilde };
  return tilde ? { value, raw, dynamic, quoted, tilde } : { value, raw, dynamic, quoted };
}

function dqLit(q: GoNode): string {
  return dqText(goStr(q.Value));
}

/** The parts of a dynamic word, for static expansion (only built for dynamic words, which are rare). */
function partsOf(w: GoNode, slice: (n: GoNode) => string): WordPart[] {
  const parts: WordPart[] = [];
  for (let i = 0; i < w.Parts.$length; i++) {
    const p = el(w.Parts, i);
    const t = typeOf(p);
    if (t === "*syntax.Lit") parts.push({ t: "lit", v: unescapeUnquoted(goStr(p.Value)) });
    else if (t === "*syntax.SglQuoted") parts.push({ t: "lit", v: p.Dollar ? ansiC(goStr(p.Value)) : goStr(p.Value) });
    else if (t === "*syntax.DblQuoted") {
      for (let j = 0; j < p.Parts.$length; j++) {
        const q = el(p.Parts, j);
        parts.push(typeOf(q) === "*syntax.Lit" ? { t: "lit", v: dqLit(q) } : partOf(slice(q)));
      }
    } else parts.push(partOf(slice(p)));
  }
  return parts;
}

/** A here-string's or here-doc's text (the source text where it has expansions). */
function stdinOf(stmt: GoNode, word: (w: GoNode) => ShellWord): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < stmt.Redirs.$length; i++) {
    const r = el(stmt.Redirs, i);
    if (r.Op === 63) out = `${word(r.Word).value}\n`;
    else if ((r.Op === 61 || r.Op === 62) && !isNil(r.Hdoc)) out = word(r.Hdoc).value;
  }
  return out;
}

/** What `echo`/`printf` with literal arguments prints (undefined for anything else). */
export function printed(words: readonly ShellWord[]): string | undefined {
  const name = words[0]?.value;
  if ((name !== "echo" && name !== "printf") || words.some((w) => w.dynamic)) return undefined;
  let args = words.slice(1).map((w) => w.value);
  if (name === "echo") {
    while (args[0] && /^-[neE]+$/.test(args[0])) args = args.slice(1);
    return `${args.join(" ")}\n`;
  }
  const fmt = (args[0] ?? "").replace(/\\n/g, "\n").replace(/\\t/g, "\t");
  let k = 1;
  return fmt.replace(/%[sbd]/g, () => args[k++] ?? "").replace(/%%/g, "%");
}

function literalPrint(stmt: GoNode, word: (w: GoNode) => ShellWord): string | undefined {
  if (isNil(stmt) || typeOf(stmt.Cmd) !== "*syntax.CallExpr" || stmt.Cmd.Assigns.$length) return undefined;
  const words: ShellWord[] = [];
  for (let i = 0; i < stmt.Cmd.Args.$length; i++) words.push(word(el(stmt.Cmd.Args, i)));
  return printed(words);
}

/** A dynamic part by its source: `$NAME`, `${NAME}`, `$(…)`, `` `…` ``, or something we do not expand. */
function partOf(src: string): WordPart {
  const m = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/.exec(src);
  if (m) return { t: "param", name: (m[1] ?? m[2])! };
  if (src.startsWith("$(") && !src.startsWith("$((") && src.endsWith(")")) return { t: "subst", src: src.slice(2, -1) };
  if (src.startsWith("`") && src.endsWith("`")) return { t: "subst", src: src.slice(1, -1) };
  if (src.startsWith("<(") && src.endsWith(")")) return { t: "subst", src: src.slice(2, -1), proc: true };
  return { t: "other" };
}

/** `$'…'` strings: the escapes bash interprets (`$'\x72m'` is `rm`). */
function ansiC(s: string): string {
  const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "?": "?", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v" };
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g, (m, c: string) => {
    if (/^[xuU]/.test(c) && c.length > 1) return String.fromCodePoint(parseInt(c.slice(1), 16));
    if (/^[0-7]/.test(c)) return String.fromCharCode(parseInt(c, 8));
    if (c.startsWith("c") && c.length === 2) return String.fromCharCode(c.charCodeAt(1) & 31);
    return map[c] ?? m;
  });
}

/** A last-resort split for commands the parser rejects: used only to look for deny matches. */
export function crudeSplit(src: string): string[][] {
  return src
    .split(/&&|\|\||\|&|[;|&\n`()]|\$\(/)
    .map((s) => s.trim().split(/\s+/).filter(Boolean).map((w) => w.replace(/^['"]|['"]$/g, "")))
    .filter((ws) => ws.length > 0);
}
