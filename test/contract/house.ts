/**
 * Measures the house: the import graph (circles, plugin→plugin edges, layer rules), file sizes and
 * function lengths, read with the TypeScript compiler's parser. Used by test/contract/layers.test.ts
 * (the rules) and bench/house.ts (the figures the README reports).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SOURCE_DIRS = ["core", "lib", "plugins"];

export interface SourceFile {
  /** Path relative to the repository root, with forward slashes. */
  file: string;
  lines: number;
  /** Lines that hold code: not blank, not only a comment. */
  codeLines: number;
  /** Resolved relative imports (repository paths), type-only ones included. */
  imports: Array<{ to: string; typeOnly: boolean }>;
  functions: Array<{ name: string; line: number; lines: number }>;
}

function listTs(dir: string): string[] {
  const out: string[] = [];
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return out;
  for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name !== "node_modules" && e.name !== "examples") out.push(...listTs(rel));
    } else if (/\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name)) out.push(rel);
  }
  return out;
}

function functionName(node: ts.Node, sf: ts.SourceFile): string {
  const n = (node as { name?: ts.Node }).name;
  if (n) return n.getText(sf);
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p)) return p.name.getText(sf);
  if (p && ts.isPropertyAssignment(p)) return p.name.getText(sf);
  if (p && ts.isCallExpression(p)) return `${p.expression.getText(sf).slice(0, 60)}(…)`;
  return "(anonymous)";
}

export function readSource(file: string): SourceFile {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports: SourceFile["imports"] = [];
  const functions: SourceFile["functions"] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text;
      if (spec.startsWith(".")) {
        const typeOnly = ts.isImportDeclaration(node) ? !!node.importClause?.isTypeOnly : node.isTypeOnly;
        imports.push({ to: path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)), typeOnly });
      }
    }
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node)) {
      const body = (node as ts.FunctionLikeDeclaration).body;
      if (body) {
        const start = lineOf(node.getStart(sf));
        const lines = lineOf(body.getEnd()) - start + 1;
        functions.push({ name: ts.isConstructorDeclaration(node) ? "constructor" : functionName(node, sf), line: start, lines });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const all = text.split("\n");
  if (text.endsWith("\n")) all.pop();
  const codeLines = all.filter((l) => {
    const t = l.trim();
    return t !== "" && !t.startsWith("//") && !t.startsWith("/*") && !t.startsWith("*");
  }).length;
  return { file, lines: all.length, codeLines, imports, functions };
}

export function readTree(): SourceFile[] {
  return SOURCE_DIRS.flatMap(listTs).sort().map(readSource);
}

/** Strongly connected groups of more than one file (Tarjan), type-only imports included. */
export function importCircles(files: SourceFile[]): string[][] {
  const graph = new Map(files.map((f) => [f.file, f.imports.map((i) => i.to).filter((t) => t !== f.file)]));
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return out;
}

const isLeaf = (f: string) => /^core\/(types|errors|stages)\.ts$/.test(f) || f.startsWith("core/types/");
const pluginOf = (f: string) => (f.startsWith("plugins/") ? f.split("/")[1] : undefined);

/**
 * Import-rule violations, as "from → to (rule)":
 *  - leaf modules (core/types.ts, core/types/*, core/errors.ts, core/stages.ts) import only each other;
 *  - core/cli/* imports values only from core/index.ts, leaf modules, lib/, its own folder and the
 *    bundled list plugins/bundled.ts (whose manifests declare every command; types from anywhere in
 *    core), so `--help` loads no host;
 *  - lib/* imports core/types.ts, core/errors.ts and lib/ only, never plugins/;
 *  - plugins/<x>/* imports core/index.ts, lib/* and its own folder only;
 *  - the only core→plugins edge is to plugins/bundled.ts.
 */
export function layerViolations(files: SourceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    for (const { to, typeOnly } of f.imports) {
      const bad = (rule: string) => out.push(`${f.file} → ${to} (${rule})`);
      if (isLeaf(f.file)) {
        if (!isLeaf(to)) bad("leaf modules import only leaf modules");
      } else if (f.file.startsWith("core/cli/")) {
        if (!to.startsWith("core/cli/") && to !== "core/index.ts" && to !== "plugins/bundled.ts" && !to.startsWith("lib/") && !isLeaf(to) && !typeOnly) bad("cli imports core/index.ts only");
      } else if (f.file.startsWith("core/")) {
        if (to.startsWith("plugins/") && to !== "plugins/bundled.ts") bad("core reaches plugins only through plugins/bundled.ts");
      } else if (f.file.startsWith("lib/")) {
        if (!to.startsWith("lib/") && to !== "core/types.ts" && to !== "core/errors.ts") bad("lib imports core/types.ts and lib/ only");
      } else {
        const own = pluginOf(f.file);
        if (to.startsWith("plugins/") && pluginOf(to) !== own) bad("no plugin→plugin imports");
        else if (to.startsWith("core/") && to !== "core/index.ts") bad("plugins import core/index.ts only");
      }
    }
  }
  return out.sort();
}

export interface HouseFigures {
  coreLines: number;
  coreCodeLines: number;
  cliLines: number;
  coreFilesOver250: string[];
  coreFunctionsOver50: string[];
  pluginFilesOver400: string[];
  functionsOver80: string[];
  circles: string[][];
  pluginToPlugin: string[];
}

export function figures(files = readTree()): HouseFigures {
  const core = files.filter((f) => f.file.startsWith("core/"));
  const fnList = (fs: SourceFile[], min: number) =>
    fs.flatMap((f) => f.functions.filter((fn) => fn.lines > min).map((fn) => `${f.file}:${fn.line} ${fn.name} (${fn.lines})`));
  return {
    coreLines: core.reduce((n, f) => n + f.lines, 0),
    coreCodeLines: core.reduce((n, f) => n + f.codeLines, 0),
    cliLines: core.filter((f) => f.file.startsWith("core/cli/")).reduce((n, f) => n + f.lines, 0),
    coreFilesOver250: core.filter((f) => f.lines > 250).map((f) => `${f.file} (${f.lines})`),
    coreFunctionsOver50: fnList(core, 50),
    pluginFilesOver400: files.filter((f) => f.file.startsWith("plugins/") && f.lines > 400).map((f) => `${f.file} (${f.lines})`),
    functionsOver80: fnList(files, 80),
    circles: importCircles(files),
    pluginToPlugin: layerViolations(files).filter((v) => v.endsWith("(no plugin→plugin imports)")),
  };
}
