/**
 * The LSP tool's operations → LSP requests, and their results → readable text (paths relative to
 * cwd, 1-based positions, the source line) plus structuredContent. A server that lacks a capability
 * or fails answers with an error result, never an empty one (ISS #75615).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ReadFilter, ToolResult } from "../../core/index.ts";
import { realpathLoose } from "../../lib/fs-path.ts";
import { LspError, type LspServer, type Position, type Range } from "./server.ts";

export const OPERATIONS = [
  "goToDefinition",
  "findReferences",
  "hover",
  "documentSymbol",
  "workspaceSymbol",
  "goToImplementation",
  "prepareCallHierarchy",
  "incomingCalls",
  "outgoingCalls",
] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface LspInput {
  operation: Operation;
  filePath: string;
  line: number;
  character: number;
  query?: string;
}

/** Which server capability each operation needs (exhaustive over Operation). */
const CAPABILITY: Record<Operation, string> = {
  goToDefinition: "definitionProvider",
  findReferences: "referencesProvider",
  hover: "hoverProvider",
  documentSymbol: "documentSymbolProvider",
  workspaceSymbol: "workspaceSymbolProvider",
  goToImplementation: "implementationProvider",
  prepareCallHierarchy: "callHierarchyProvider",
  incomingCalls: "callHierarchyProvider",
  outgoingCalls: "callHierarchyProvider",
};

const SYMBOL_KINDS = [
  "", "File", "Module", "Namespace", "Package", "Class", "Method", "Property", "Field", "Constructor", "Enum", "Interface", "Function",
  "Variable", "Constant", "String", "Number", "Boolean", "Array", "Object", "Key", "Null", "EnumMember", "Struct", "Event", "Operator", "TypeParameter",
];

/** Location results under these directories are hidden from lists (Claude Code filters gitignored dirs). */
const HIDDEN_DIRS = /[\\/](node_modules|\.venv|venv|\.git|__pycache__)[\\/]/;

export interface Loc {
  file: string;
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
}

/** One operation's call: the position (0-based, for the server), how to answer, how to ask. */
interface Op {
  input: LspInput;
  rel: string;
  uri: string;
  textDocument: { uri: string };
  position: Position;
  /** `file:line:character` as the user gave it. */
  at: string;
  fmt: Formatter;
  /** Read deny rules: locations in files they cover are withheld (one boundary for every read). */
  screen: Screen;
  done(text: string, results: unknown): ToolResult;
  req<R>(method: string, params: unknown): Promise<R>;
}

export async function runOperation(server: LspServer, input: LspInput, cwd: string, signal: AbortSignal, deny?: ReadFilter): Promise<ToolResult> {
  const op = await prepare(server, input, cwd, signal, deny);
  switch (input.operation) {
    case "goToDefinition":
    case "goToImplementation":
      return locations(op);
    case "findReferences":
      return references(op);
    case "hover":
      return hover(op);
    case "documentSymbol":
      return documentSymbols(op);
    case "workspaceSymbol":
      return workspaceSymbols(op);
    case "prepareCallHierarchy":
    case "incomingCalls":
    case "outgoingCalls":
      return callHierarchy(op);
  }
}

/** Starts the server, checks its capability and the position against the file's current text, and opens the file. */
async function prepare(server: LspServer, input: LspInput, cwd: string, signal: AbortSignal, deny?: ReadFilter): Promise<Op> {
  const file = input.filePath;
  const rel = relPath(file, cwd);
  const cap = CAPABILITY[input.operation];
  await server.ensureStarted();
  if (!server.capabilities[cap]) throw new LspError(`${server.label} does not support ${input.operation} (its initialize result has no ${cap})`);
  server.refreshOpenDocuments();
  const uri = server.syncFile(file);
  const text = server.openText(file) ?? "";
  const lines = text.split("\n");
  if (input.line > lines.length) throw new LspError(`line ${input.line} is past the end of ${rel} (${lines.length} lines)`);
  const lineText = lines[input.line - 1]!.replace(/\r$/, "");
  if (input.character > lineText.length + 1) throw new LspError(`character ${input.character} is past the end of line ${input.line} of ${rel} (${lineText.length} characters)`);
  const position = { line: input.line - 1, character: input.character - 1 };
  const base = { operation: input.operation, file: rel, line: input.line, character: input.character, server: server.def.id };
  const screen = new Screen(deny);
  return {
    input,
    rel,
    uri,
    textDocument: { uri },
    position,
    at: `${rel}:${input.line}:${input.character}`,
    fmt: new Formatter(cwd),
    screen,
    done: (text, results) => {
      const shown = text + screen.note();
      return { content: [{ type: "text", text: shown }], structuredContent: { ...base, results, ...(screen.count ? { deniedLocations: screen.count } : {}) }, toolResponse: ccResponse(input, shown, results, rel) };
    },
    req: <R>(method: string, params: unknown) => server.request<R>(method, params, signal),
  };
}

/**
 * The tool_response PostToolUse hooks get, in Claude Code's shape (recorded: plugin-lsp): the operation, the text the
 * model saw, the file asked about, how many results and in how many files.
 */
function ccResponse(input: LspInput, result: string, results: unknown, rel: string): Record<string, unknown> {
  const list = Array.isArray(results) ? results : results ? [results] : [];
  const fileOf = (r: unknown) => (r as { file?: string; range?: { file?: string } }).file ?? (r as { range?: { file?: string } }).range?.file ?? rel;
  return { operation: input.operation, result, filePath: input.filePath, resultCount: list.length, fileCount: new Set(list.map(fileOf)).size };
}

async function locations({ input, textDocument, position, at, fmt, screen, done, req }: Op): Promise<ToolResult> {
  const method = input.operation === "goToDefinition" ? "textDocument/definition" : "textDocument/implementation";
  const what = input.operation === "goToDefinition" ? "definition" : "implementation";
  const locs = screen.locs(toLocs(await req(method, { textDocument, position })));
  if (!locs.length) return done(`No ${what} found for the symbol at ${at}.`, []);
  return done(`Found ${plural(locs.length, what)}:\n${locs.map((l) => `  ${fmt.loc(l)}`).join("\n")}`, locs.map((l) => fmt.out(l)));
}

async function references({ textDocument, position, at, fmt, screen, done, req }: Op): Promise<ToolResult> {
  const all = screen.locs(toLocs(await req("textDocument/references", { textDocument, position, context: { includeDeclaration: true } })));
  const locs = all.filter((l) => !HIDDEN_DIRS.test(l.file));
  const hidden = all.length - locs.length ? ` (${all.length - locs.length} more in node_modules/venv/.git hidden)` : "";
  if (!locs.length) return done(`No references found for the symbol at ${at}${hidden}.`, []);
  const byFile = groupBy(locs, (l) => l.file);
  const body = [...byFile].map(([f, ls]) => `${fmt.rel(f)}\n${ls.map((l) => `  ${fmt.loc(l, false)}`).join("\n")}`).join("\n");
  return done(`Found ${plural(locs.length, "reference")} in ${plural(byFile.size, "file")}${hidden}:\n${body}`, locs.map((l) => fmt.out(l)));
}

async function hover({ uri, textDocument, position, at, fmt, screen, done, req }: Op): Promise<ToolResult> {
  // hover text comes from the symbol's declaration (its doc comment, its type): withheld when that is in a denied file
  if (screen.active) {
    const why = screen.why(toLocs(await req("textDocument/definition", { textDocument, position }).catch(() => null)));
    if (why) return done(`Hover at ${at} withheld: the symbol is declared in ${fmt.rel(why.file)}, which ${why.reason}.`, null);
  }
  const h: any = await req("textDocument/hover", { textDocument, position });
  const body = hoverText(h?.contents);
  if (!body) return done(`No hover information for ${at}.`, null);
  return done(`Hover at ${at}:\n${body}`, { contents: body, range: h?.range ? fmt.out(rangeLoc(uri, h.range)) : undefined });
}

async function documentSymbols({ rel, uri, textDocument, fmt, done, req }: Op): Promise<ToolResult> {
  const syms: any[] = (await req<any[]>("textDocument/documentSymbol", { textDocument })) ?? [];
  if (!syms.length) return done(`No symbols found in ${rel}.`, []);
  const out: string[] = [];
  const flat: unknown[] = [];
  const walk = (s: any, depth: number, container?: string) => {
    const r: Range = s.selectionRange ?? s.range ?? s.location?.range;
    const l = rangeLoc(s.location?.uri ?? uri, r);
    out.push(`${"  ".repeat(depth)}- ${s.name} (${kindName(s.kind)}) ${l.line}:${l.character}${s.detail ? ` ${s.detail}` : ""}`);
    flat.push({ name: s.name, kind: kindName(s.kind), container: container ?? s.containerName, ...fmt.out(l) });
    for (const c of byPosition(s.children ?? [])) walk(c, depth + 1, s.name);
  };
  // In source order, like an editor's outline (servers often sort by name).
  for (const s of byPosition(syms)) walk(s, 0);
  return done(`${plural(flat.length, "symbol")} in ${rel}:\n${out.join("\n")}`, flat);
}

async function workspaceSymbols({ input, fmt, screen, done, req }: Op): Promise<ToolResult> {
  const query = input.query ?? "";
  const syms: any[] = (await req<any[]>("workspace/symbol", { query })) ?? [];
  const mapped = syms
    .filter((s) => typeof s?.location?.uri === "string")
    .map((s) => ({ s, l: rangeLoc(s.location.uri, s.location.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }) }))
    .filter((m) => screen.keep(m.l.file));
  const shown = mapped.filter((m) => !HIDDEN_DIRS.test(m.l.file));
  const hidden = mapped.length - shown.length ? ` (${mapped.length - shown.length} more in node_modules/venv/.git hidden)` : "";
  const q = query ? ` matching "${query}"` : "";
  if (!shown.length) return done(`No workspace symbols found${q}${hidden}.${query ? "" : ' Pass "query" (part of a symbol name) to search.'}`, []);
  return done(
    `Found ${plural(shown.length, "symbol")}${q}${hidden}:\n${shown.map(({ s, l }) => `  ${s.name} (${kindName(s.kind)}) ${fmt.rel(l.file)}:${l.line}:${l.character}${s.containerName ? ` in ${s.containerName}` : ""}`).join("\n")}`,
    shown.map(({ s, l }) => ({ name: s.name, kind: kindName(s.kind), container: s.containerName, ...fmt.out(l) })),
  );
}

async function callHierarchy(op: Op): Promise<ToolResult> {
  const { input, textDocument, position, at, fmt, screen, done, req } = op;
  const items: any[] = ((await req<any[]>("textDocument/prepareCallHierarchy", { textDocument, position })) ?? []).filter((i) => screen.keep(rangeLoc(i.uri, i.range).file));
  if (!items.length) return done(`No call hierarchy item (function, method…) at ${at}.`, []);
  const item = (i: any) => {
    const l = rangeLoc(i.uri, i.selectionRange ?? i.range);
    return { text: `${i.name} (${kindName(i.kind)}) ${fmt.rel(l.file)}:${l.line}:${l.character}${i.detail ? ` ${i.detail}` : ""}`, out: { name: i.name, kind: kindName(i.kind), ...fmt.out(l) } };
  };
  if (input.operation === "prepareCallHierarchy") {
    return done(`Call hierarchy ${items.length === 1 ? "item" : "items"} at ${at}:\n${items.map((i) => `  ${item(i).text}`).join("\n")}`, items.map((i) => item(i).out));
  }
  const incoming = input.operation === "incomingCalls";
  const out: string[] = [];
  const results: unknown[] = [];
  for (const it of items) {
    const calls: any[] = (await req<any[]>(incoming ? "callHierarchy/incomingCalls" : "callHierarchy/outgoingCalls", { item: it })) ?? [];
    out.push(`${incoming ? "Incoming calls to" : "Outgoing calls from"} ${item(it).text}:`);
    if (!calls.length) out.push(incoming ? "  (no callers found)" : "  (no calls found)");
    for (const c of calls) {
      const o = incoming ? c.from : c.to;
      if (!screen.keep(rangeLoc(o?.uri ?? "", o?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }).file)) continue;
      const other = item(o);
      // fromRanges are in the caller's file for incoming calls and in this item's file for outgoing ones.
      const sites = (c.fromRanges ?? []).map((r: Range) => `${r.start.line + 1}:${r.start.character + 1}`);
      out.push(`  ${other.text}${sites.length ? ` — call ${sites.length === 1 ? "site" : "sites"} ${sites.join(", ")}` : ""}`);
      results.push({ ...other.out, callSites: (c.fromRanges ?? []).map((r: Range) => ({ line: r.start.line + 1, character: r.start.character + 1 })) });
    }
  }
  return done(out.join("\n"), results);
}

function byPosition(syms: any[]): any[] {
  const start = (s: any): Position => (s.selectionRange ?? s.range ?? s.location?.range)?.start ?? { line: 0, character: 0 };
  return [...syms].sort((a, b) => start(a).line - start(b).line || start(a).character - start(b).character);
}

function toLocs(res: unknown): Loc[] {
  if (!res) return [];
  const arr = Array.isArray(res) ? res : [res];
  return arr
    .map((x: any) => (x?.targetUri ? rangeLoc(x.targetUri, x.targetSelectionRange ?? x.targetRange) : x?.uri && x.range ? rangeLoc(x.uri, x.range) : undefined))
    .filter((l): l is Loc => !!l);
}

function rangeLoc(uri: string, r: Range): Loc {
  let file = uri;
  try {
    if (uri.startsWith("file:")) file = fileURLToPath(uri);
  } catch {}
  return { file, line: r.start.line + 1, character: r.start.character + 1, endLine: r.end.line + 1, endCharacter: r.end.character + 1 };
}

function hoverText(c: any): string {
  if (!c) return "";
  if (typeof c === "string") return c.trim();
  if (Array.isArray(c)) return c.map(hoverText).filter(Boolean).join("\n\n");
  if (typeof c.language === "string") return c.value ? "```" + c.language + "\n" + c.value + "\n```" : "";
  return typeof c.value === "string" ? c.value.trim() : "";
}

function kindName(k: number): string {
  return SYMBOL_KINDS[k] || `kind ${k}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function groupBy<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
}

export function relPath(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const r = path.relative(cwd, file);
  return r && !r.startsWith("..") && !path.isAbsolute(r) ? r : file;
}

/** Paths relative to cwd and the source line of each location (files read once per call). */
class Formatter {
  private readonly lines = new Map<string, string[] | undefined>();
  constructor(private readonly cwd: string) {}
  rel(file: string): string {
    return relPath(file, this.cwd);
  }
  loc(l: Loc, withFile = true): string {
    const src = this.source(l.file, l.line);
    return `${withFile ? `${this.rel(l.file)}:` : ""}${l.line}:${l.character}${src ? `: ${src}` : ""}`;
  }
  out(l: Loc) {
    return { file: this.rel(l.file), line: l.line, character: l.character, endLine: l.endLine, endCharacter: l.endCharacter };
  }
  private source(file: string, line: number): string {
    if (!this.lines.has(file)) {
      let ls: string[] | undefined;
      try {
        ls = path.isAbsolute(file) && fs.statSync(file).size < 5_000_000 ? fs.readFileSync(file, "utf8").split("\n") : undefined;
      } catch {}
      this.lines.set(file, ls);
    }
    const t = this.lines.get(file)?.[line - 1]?.trim() ?? "";
    return t.length > 160 ? t.slice(0, 160) + "…" : t;
  }
}

/**
 * Read deny rules over LSP results: a location in a file they cover (as written or where a link leads) is
 * withheld, and the result says how many and why — the language server indexes the whole workspace, so
 * without this a denied file's symbols, paths and source lines would reach the model through LSP.
 */
class Screen {
  count = 0;
  private readonly reasons = new Set<string>();
  constructor(private readonly deny?: ReadFilter) {}
  get active(): boolean {
    return !!this.deny;
  }
  private reason(file: string): string | undefined {
    if (!this.deny || !path.isAbsolute(file)) return undefined;
    const r = this.deny(file);
    if (r !== undefined) return r;
    const real = realpathLoose(file);
    return real !== file ? this.deny(real) : undefined;
  }
  keep(file: string): boolean {
    const r = this.reason(file);
    if (r === undefined) return true;
    this.count++;
    if (this.reasons.size < 3) this.reasons.add(r);
    return false;
  }
  locs(ls: Loc[]): Loc[] {
    return this.deny ? ls.filter((l) => this.keep(l.file)) : ls;
  }
  /** The first of these locations a deny rule covers (not counted). */
  why(ls: Loc[]): { file: string; reason: string } | undefined {
    for (const l of ls) {
      const r = this.reason(l.file);
      if (r !== undefined) return { file: l.file, reason: `is ${r}` };
    }
    return undefined;
  }
  note(): string {
    return this.count ? `\n(${plural(this.count, "location")} in files a Read deny rule covers not shown: ${[...this.reasons].join("; ")})` : "";
  }
}
