/**
 * Shell parsing for Bash permission rules, with a real parser: mvdan-sh (the GopherJS build of
 * mvdan/sh). A command line becomes the flat list of every simple command it would run — in
 * `&& || ; | |& &` lists, newlines, subshells, `{ }` blocks, `$()` and backticks, if/for/while/case
 * bodies, function bodies, process substitutions, here-doc expansions — each with its words
 * (unquoted values, or source text for dynamic parts) and its redirections.
 */
import { createRequire } from "node:module";

export interface ShellWord {
  /** Unquoted value for literal words; the source text for words with expansions. */
  value: string;
  /** Source text, as written. */
  raw: string;
  /** Contains `$VAR`, `$()`, backticks, arithmetic or process substitution. */
  dynamic: boolean;
  /** Some part was quoted (globs in it are literal). */
  quoted: boolean;
}

export interface ShellRedirect {
  /** `>`, `>>`, `<`, `<>`, `>|`, `&>`, `&>>`, `<&`, `>&`, `<<`, `<<-`, `<<<`. */
  op: string;
  fd?: string;
  target: ShellWord;
}

export interface SimpleCommand {
  /** Leading `NAME=value` assignments (names). */
  assigns: Array<{ name: string; raw: string }>;
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** `export`, `declare`, `local` … statements: words are the variant and the assignments. */
  decl?: boolean;
}

export interface ShellAnalysis {
  ok: boolean;
  error?: string;
  commands: SimpleCommand[];
  /** Redirections on compound statements (`{ …; } > f`, `(…) < f`). */
  redirects: ShellRedirect[];
}

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

function analyzeUncached(src: string): ShellAnalysis {
  const { syntax } = sh();
  parser ??= syntax.NewParser();
  let file: any;
  try {
    file = parser.Parse(src, "");
  } catch (e: any) {
    const msg = typeof e?.Error === "function" ? e.Error() : e?.message ?? String(e);
    return { ok: false, error: `cannot parse shell command: ${msg}`, commands: [], redirects: [] };
  }
  const buf = Buffer.from(src, "utf8");
  const slice = (n: any) => buf.subarray(n.Pos().Offset(), n.End().Offset()).toString("utf8");
  const commands: SimpleCommand[] = [];
  const redirects: ShellRedirect[] = [];
  const word = (w: any): ShellWord => wordOf(w, slice, syntax);
  syntax.Walk(file, (node: any) => {
    if (!node) return true;
    const t = syntax.NodeType(node);
    if (t === "Stmt") {
      const cmd = node.Cmd;
      const ct = cmd ? syntax.NodeType(cmd) : "";
      const redirs: ShellRedirect[] = [];
      for (let i = 0; i < node.Redirs.length; i++) {
        const r = node.Redirs[i];
        redirs.push({ op: REDIR_OPS[r.Op] ?? "?", fd: r.N ? r.N.Value : undefined, target: word(r.Word) });
      }
      if (ct === "CallExpr") {
        const assigns: SimpleCommand["assigns"] = [];
        for (let i = 0; i < cmd.Assigns.length; i++) {
          const a = cmd.Assigns[i];
          assigns.push({ name: a.Name ? a.Name.Value : "", raw: slice(a) });
        }
        const words: ShellWord[] = [];
        for (let i = 0; i < cmd.Args.length; i++) words.push(word(cmd.Args[i]));
        commands.push({ assigns, words, redirects: redirs });
      } else if (ct === "DeclClause") {
        const words: ShellWord[] = [{ value: cmd.Variant.Value, raw: cmd.Variant.Value, dynamic: false, quoted: false }];
        const assigns: SimpleCommand["assigns"] = [];
        for (let i = 0; i < cmd.Args.length; i++) {
          const a = cmd.Args[i];
          const raw = slice(a);
          if (a.Name) assigns.push({ name: a.Name.Value, raw });
          words.push({ value: raw, raw, dynamic: /[$`]/.test(raw), quoted: false });
        }
        commands.push({ assigns, words, redirects: redirs, decl: true });
      } else if (redirs.length) redirects.push(...redirs);
    }
    return true;
  });
  return { ok: true, commands, redirects };
}

function wordOf(w: any, slice: (n: any) => string, syntax: any): ShellWord {
  if (!w) return { value: "", raw: "", dynamic: false, quoted: false };
  const raw = slice(w);
  let value = "";
  let dynamic = false;
  let quoted = false;
  for (let i = 0; i < w.Parts.length; i++) {
    const p = w.Parts[i];
    switch (syntax.NodeType(p)) {
      case "Lit":
        value += unescapeUnquoted(p.Value);
        break;
      case "SglQuoted":
        quoted = true;
        value += p.Dollar ? ansiC(p.Value) : p.Value;
        break;
      case "DblQuoted":
        quoted = true;
        for (let j = 0; j < p.Parts.length; j++) {
          const q = p.Parts[j];
          if (syntax.NodeType(q) === "Lit") value += q.Value.replace(/\\([$`"\\])/g, "$1").replace(/\\\n/g, "");
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
  return { value, raw, dynamic, quoted };
}

function unescapeUnquoted(s: string): string {
  return s.indexOf("\\") < 0 ? s : s.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
}

function ansiC(s: string): string {
  const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", e: "\x1b", f: "\f", v: "\v" };
  return s.replace(/\\(.)/g, (m, c: string) => map[c] ?? m);
}

/** A last-resort split for commands the parser rejects: used only to look for deny matches. */
export function crudeSplit(src: string): string[][] {
  return src
    .split(/&&|\|\||\|&|[;|&\n`()]|\$\(/)
    .map((s) => s.trim().split(/\s+/).filter(Boolean).map((w) => w.replace(/^['"]|['"]$/g, "")))
    .filter((ws) => ws.length > 0);
}
