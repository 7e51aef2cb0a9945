/** Small text helpers shared by core and plugins: "did you mean" for typos, `${NAME}` placeholders. */
import { setKey } from "./null-proto.ts";

/** " (did you mean "X"?)" for the closest known word within edit distance 2, else "". */
export function suggest(word: string, known: Iterable<string>): string {
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    const d = editDistance(word.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best ? ` (did you mean "${best}"?)` : "";
}

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}

/** Replace `${NAME}` for the given names only, deeply; other placeholders are left for their owners. */
export function substitute<T>(value: T, vars: Record<string, string>): T {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Z_]+)\}/g, (m, name: string) => (name in vars ? vars[name]! : m)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setKey(out, k, substitute(v, vars));
    return out as T;
  }
  return value;
}
