/**
 * Grep's pattern and file selection: the ripgrep-style pattern compiled to a JS RegExp, the plain-literal
 * fast path, and the file filter built from `glob` and `type` (ripgrep's --type names).
 */
import { createRequire } from "node:module";
import type PicomatchNs from "picomatch";

// CJS packages through createRequire: the same function whether jiti or vitest loads this module
const picomatch = createRequire(import.meta.url)("picomatch") as typeof PicomatchNs;

/** ripgrep's --type names for the common languages (a subset of `rg --type-list`). */
export const TYPES: Record<string, string[]> = {
  js: ["*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"],
  ts: ["*.ts", "*.tsx", "*.mts", "*.cts"],
  typescript: ["*.ts", "*.tsx", "*.mts", "*.cts"],
  py: ["*.py", "*.pyi"],
  python: ["*.py", "*.pyi"],
  rust: ["*.rs"],
  go: ["*.go"],
  java: ["*.java", "*.jsp", "*.properties"],
  kotlin: ["*.kt", "*.kts"],
  swift: ["*.swift"],
  c: ["*.c", "*.h", "*.H"],
  cpp: ["*.C", "*.cc", "*.cpp", "*.cxx", "*.c++", "*.h", "*.hh", "*.hpp", "*.hxx", "*.inl"],
  cs: ["*.cs"],
  rb: ["*.rb", "*.gemspec", "Gemfile", "Rakefile"],
  ruby: ["*.rb", "*.gemspec", "Gemfile", "Rakefile"],
  php: ["*.php", "*.php3", "*.php4", "*.php5", "*.phtml"],
  sh: ["*.sh", "*.bash", "*.zsh", ".bashrc", ".zshrc", ".profile"],
  json: ["*.json", "*.jsonc", "*.json5"],
  yaml: ["*.yaml", "*.yml"],
  toml: ["*.toml", "Cargo.lock"],
  md: ["*.md", "*.markdown", "*.mdx"],
  markdown: ["*.md", "*.markdown", "*.mdx"],
  html: ["*.html", "*.htm", "*.xhtml"],
  css: ["*.css", "*.scss", "*.sass", "*.less"],
  sql: ["*.sql"],
  xml: ["*.xml", "*.xsd", "*.xsl", "*.svg"],
  lua: ["*.lua"],
  scala: ["*.scala", "*.sbt"],
  elixir: ["*.ex", "*.exs"],
  haskell: ["*.hs", "*.lhs"],
  txt: ["*.txt"],
  docker: ["Dockerfile", "*.dockerfile", "Dockerfile.*"],
  make: ["Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak"],
  proto: ["*.proto"],
  vue: ["*.vue"],
  svelte: ["*.svelte"],
};

/** Compile a ripgrep-style pattern to a JS RegExp (inline (?i)/(?s)/(?m) prefixes become flags). */
export function compilePattern(pattern: string, opts: { ignoreCase?: boolean; multiline?: boolean }): RegExp {
  let p = pattern;
  let flags = "gm";
  const lead = /^\(\?([imsx]+)\)/.exec(p);
  if (lead) {
    p = p.slice(lead[0].length);
    if (lead[1]!.includes("i")) flags += "i";
    if (lead[1]!.includes("s")) flags += "s";
  }
  if (opts.ignoreCase && !flags.includes("i")) flags += "i";
  if (opts.multiline && !flags.includes("s")) flags += "s";
  try {
    return new RegExp(p, flags + "u");
  } catch {
    return new RegExp(p, flags); // ripgrep accepts escapes (\- \/ …) that JS's unicode mode rejects
  }
}

/** Build a file filter from `glob` (whitespace/comma separated, `!` negates; basename match when no `/`) and `type`. */
export function fileFilter(glob: string | undefined, type: string | undefined): ((rel: string) => boolean) | string {
  const pos: Array<(s: string) => boolean> = [];
  const neg: Array<(s: string) => boolean> = [];
  const add = (g: string, into: typeof pos) => {
    const basename = !g.includes("/");
    const m = picomatch(g.replace(/^\.\//, ""), { dot: true, basename });
    into.push(m);
  };
  if (glob) {
    // split on whitespace and on commas outside braces
    const parts: string[] = [];
    let cur = "";
    let depth = 0;
    for (const ch of glob) {
      if (ch === "{") depth++;
      if (ch === "}") depth--;
      if ((/\s/.test(ch) || ch === ",") && depth === 0) {
        if (cur) parts.push(cur);
        cur = "";
      } else cur += ch;
    }
    if (cur) parts.push(cur);
    for (const g of parts) g.startsWith("!") ? add(g.slice(1), neg) : add(g, pos);
  }
  let typeMatch: ((s: string) => boolean) | undefined;
  if (type) {
    const globs = TYPES[type.toLowerCase()];
    if (!globs) return `unknown file type "${type}". Known types: ${Object.keys(TYPES).join(", ")}. Or use glob (e.g. "*.ext") instead.`;
    // type globs are `*.ext`, exact names or `Name.*`: match the basename with set lookups, not regexes
    const exts = new Set(globs.filter((g) => /^\*\.[^*?[{]+$/.test(g)).map((g) => g.slice(1)));
    const names = new Set(globs.filter((g) => !/[*?[{]/.test(g)));
    const prefixes = globs.filter((g) => /^[^*?[{]+\.\*$/.test(g)).map((g) => g.slice(0, -1));
    typeMatch = (rel) => {
      const base = rel.slice(rel.lastIndexOf("/") + 1);
      const dot = base.lastIndexOf(".");
      return (dot > 0 && exts.has(base.slice(dot))) || names.has(base) || prefixes.some((p) => base.startsWith(p)) || (dot === 0 && exts.has(base));
    };
  }
  return (rel) => (!pos.length || pos.some((m) => m(rel))) && !neg.some((m) => m(rel)) && (!typeMatch || typeMatch(rel));
}

/** The pattern as UTF-8 bytes when it is a plain literal (no metacharacters, case-sensitive), else undefined. */
export function requiredLiteral(re: RegExp): Buffer | undefined {
  if (re.flags.includes("i") || !re.source || /[\\^$.|?*+()[\]{}]/.test(re.source)) return undefined;
  return Buffer.from(re.source, "utf8");
}
