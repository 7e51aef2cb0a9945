/**
 * Token counts for tool definitions, one copy for core (`toolhost tools`) and plugins (tool-search).
 *
 * gpt-tokenizer's o200k_base encoding. Claude's tokenizer is not public; o200k is an approximation
 * (typically within ~10–20% on English and JSON), good for comparing eager vs deferred tools. Its BPE
 * tables take tens of milliseconds to load, so they are required on the first count, not at import:
 * a command that never counts (`--help`, `serve`) never pays for them.
 */
import { createRequire } from "node:module";
import { cacheKey, diskCache } from "./disk-cache.ts";

/** The tokenizer the token columns use: an approximation of Claude's (which is not public). */
export const TOKENIZER = "o200k_base (gpt-tokenizer; approximates Claude's tokenizer)";

let o200k: ((text: string) => number) | undefined;

export function countTokens(text: string): number {
  o200k ??= (createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as { countTokens(text: string): number }).countTokens;
  return o200k(text);
}

/** The fields of a tool that make up its provider definition. */
export interface TokenTool {
  name: string;
  description: string;
  inputSchema: unknown;
}

const tokenCache = new Map<string, number>();

/**
 * Counts already made by earlier processes, by sha1 of the definition's JSON (lib/disk-cache): `toolhost tools`
 * on an unchanged pool then never loads the BPE tables (≈ 150 ms).
 */
const isCount = (v: unknown): v is number => typeof v === "number";

/**
 * Tokens a tool's definition costs in the prompt: its Anthropic Messages JSON
 * (`{name, description, input_schema}`). Cached by that text across rebuilds, and across runs on disk.
 */
export function toolTokens(t: TokenTool): number {
  const json = JSON.stringify({ name: t.name, description: t.description, input_schema: t.inputSchema });
  let n = tokenCache.get(json);
  if (n === undefined) {
    const d = diskCache("tokens-o200k", isCount);
    const key = cacheKey(json);
    n = d.get(key);
    if (n === undefined) {
      n = countTokens(json);
      d.set(key, n);
    }
    if (tokenCache.size > 20_000) tokenCache.clear();
    tokenCache.set(json, n);
  }
  return n;
}

/** Per-tool token counts and eager/deferred totals for a pool (shown by `toolhost tools`). */
export function poolTokens(pool: { readonly tools: readonly TokenTool[]; readonly deferred: readonly TokenTool[] }): { perTool: Map<string, number>; eager: number; deferred: number } {
  const perTool = new Map<string, number>();
  let eager = 0;
  let deferred = 0;
  for (const t of pool.tools) {
    const n = toolTokens(t);
    perTool.set(t.name, n);
    eager += n;
  }
  for (const t of pool.deferred) {
    const n = toolTokens(t);
    perTool.set(t.name, n);
    deferred += n;
  }
  return { perTool, eager, deferred };
}
