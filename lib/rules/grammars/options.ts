/**
 * A getopt-style option parser driven by a compact spec, shared by the read-only model (which
 * options a program may be given and still only read) and the rule grammars (which spellings of an
 * option are the same option). One parse serves both, so they never disagree on which word is an
 * option's value and which is an operand.
 *
 * Spec tokens (space separated):
 *   `abc`        short boolean flags a, b, c
 *   `x:`         short option x taking a value (`-xVAL` or `-x VAL`)
 *   `x::`        short option x with an optional attached value (`-x` or `-xVAL`)
 *   `#`          `-NUM` is accepted (`head -5`)
 *   `--name`     long boolean; `--name=` takes a value (`--name=V` or `--name V`); `--name=?` optional (`=V` only)
 *   `--name>x`   long alias of short x (inherits its value form); `--name=>x` likewise for a valued alias
 * Long options may be abbreviated to any unique prefix, as GNU getopt and git's parse-options allow
 * (for deny matching only; see parseArgs).
 */

export interface Grammar {
  short: Map<string, "none" | "req" | "opt">;
  long: Map<string, { canon: string; val: "none" | "req" | "opt" }>;
  num: boolean;
  /** Options may follow operands (GNU permutation); false: the first operand ends the options. */
  permute: boolean;
}

export interface Opt {
  /** Canonical name: the short letter, or the long name without dashes (aliases resolve to their letter). */
  k: string;
  v?: string;
  /** As written. */
  raw: string;
  /** Index in the parsed words of the word holding the value (when it is a word of its own or attached). */
  vi?: number;
}

export interface Parsed {
  opts: Opt[];
  operands: string[];
  /** Index in the parsed words of each operand. */
  operandIdx: number[];
  /** Index in `operands` where `--` was seen (-1: none). */
  dashdash: number;
  /** Options the grammar does not know (`-x`, `--name`); they are also in `opts`, as booleans named by their letter or name. */
  unknown: string[];
}

// Keyed by the spec string itself (a constant, whose hash V8 keeps), one map per permute mode.
const grammarCache = [new Map<string, Grammar>(), new Map<string, Grammar>()];

export function grammar(spec: string, permute = true): Grammar {
  const cache = grammarCache[permute ? 1 : 0]!;
  const hit = cache.get(spec);
  if (hit) return hit;
  const g: Grammar = { short: new Map(), long: new Map(), num: false, permute };
  const aliases: Array<[string, string, "none" | "req" | "opt" | undefined]> = [];
  for (const t of spec.split(/\s+/).filter(Boolean)) {
    if (t === "#") g.num = true;
    else if (t.startsWith("--")) {
      const m = /^--([^=>]+)(=\??)?(?:>(.+))?$/.exec(t);
      if (!m) throw new Error(`bad option spec ${t}`);
      const val = m[2] === "=" ? "req" : m[2] === "=?" ? "opt" : "none";
      if (m[3]) aliases.push([m[1]!, m[3], m[2] ? val : undefined]);
      else g.long.set(m[1]!, { canon: m[1]!, val });
    } else if (/^.::$/.test(t)) g.short.set(t[0]!, "opt");
    else if (/^.:$/.test(t)) g.short.set(t[0]!, "req");
    else for (const c of t) g.short.set(c, "none");
  }
  for (const [name, to, val] of aliases) g.long.set(name, { canon: to, val: val ?? g.short.get(to) ?? g.long.get(to)?.val ?? "none" });
  cache.set(spec, g);
  return g;
}

function longOpt(g: Grammar, name: string, abbrev: boolean): { canon: string; val: "none" | "req" | "opt" } | undefined {
  const exact = g.long.get(name);
  if (exact || !abbrev) return exact;
  let found: { canon: string; val: "none" | "req" | "opt" } | undefined;
  for (const [n, o] of g.long) {
    if (!n.startsWith(name)) continue;
    if (found && found.canon !== o.canon) return undefined; // ambiguous
    found = o;
  }
  return found;
}

/**
 * Parse `args` (the words after the program/subcommand). `abbrev`: accept unique prefixes of long
 * options — right for deny matching (`rm --rec --for` is `rm -rf`), wrong for the read-only model,
 * whose list is a subset of the program's options (`rg --pre` is not `--pretty`).
 */
export function parseArgs(g: Grammar, args: readonly string[], abbrev = true): Parsed {
  const out: Parsed = { opts: [], operands: [], operandIdx: [], dashdash: -1, unknown: [] };
  let end = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (end || a === "-" || !a.startsWith("-")) {
      out.operands.push(a);
      out.operandIdx.push(i);
      if (!g.permute) end = true;
      continue;
    }
    if (a === "--") {
      end = true;
      out.dashdash = out.operands.length;
      continue;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const o = longOpt(g, name, abbrev);
      if (!o) {
        out.unknown.push(a);
        out.opts.push({ k: name, v: eq < 0 ? undefined : a.slice(eq + 1), raw: a });
        continue;
      }
      let v = eq < 0 ? undefined : a.slice(eq + 1);
      const at = i;
      if (v === undefined && o.val === "req" && i + 1 < args.length) v = args[++i]!;
      out.opts.push({ k: o.canon, v, raw: v !== undefined && eq < 0 ? `${a} ${v}` : a, vi: v === undefined ? undefined : eq < 0 ? i : at });
      continue;
    }
    if (g.num && /^-\d+$/.test(a)) {
      out.opts.push({ k: "#", v: a.slice(1), raw: a });
      continue;
    }
    shortCluster(g, a, args, i, out, (n) => (i = n));
  }
  return out;
}

function shortCluster(g: Grammar, a: string, args: readonly string[], i: number, out: Parsed, setI: (n: number) => void): void {
  for (let c = 1; c < a.length; c++) {
    const ch = a[c]!;
    const kind = g.short.get(ch);
    if (!kind) {
      out.unknown.push(`-${ch}`);
      out.opts.push({ k: ch, raw: a });
      continue;
    }
    if (kind === "none") {
      out.opts.push({ k: ch, raw: a });
      continue;
    }
    const attached = a.slice(c + 1);
    if (attached || kind === "opt") out.opts.push({ k: ch, v: attached || undefined, raw: a, vi: attached ? i : undefined });
    else {
      const v = i + 1 < args.length ? args[i + 1] : undefined;
      if (v !== undefined) setI(i + 1);
      out.opts.push({ k: ch, v, raw: `${a} ${v ?? ""}`.trim(), vi: v === undefined ? undefined : i + 1 });
    }
    return;
  }
}
