/**
 * Call facts, cached per call object and input: the permissions and AGENTS.md plugins look at the
 * same call, and parsing its shell command once serves both (a PreToolUse rewrite gets fresh facts).
 */
import { callFacts, type CallFacts } from "./match.ts";

export interface FactsCall {
  /** Cache key, usually the core CallState; without one nothing is cached. */
  key?: object;
  toolName: string;
  input: unknown;
  cwd: string;
  /** Where a shell command really runs; relative paths in it resolve here (default `cwd`). */
  shellCwd?: string;
}

const factsCache = new WeakMap<object, { input: unknown; facts: CallFacts }>();

export function factsFor(call: FactsCall): CallFacts {
  const key = call.key;
  const hit = key ? factsCache.get(key) : undefined;
  if (hit && hit.input === call.input) return hit.facts;
  const facts = callFacts(call.toolName, call.input, call.cwd, call.shellCwd ?? call.cwd);
  // Only facts that took work are worth a WeakMap entry (a cheap facts object costs less than the entry).
  if (key && (facts.bash || facts.paths)) factsCache.set(key, { input: call.input, facts });
  return facts;
}
