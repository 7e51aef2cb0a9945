/**
 * Learned term associations (issue 18): query word → tool words, fitted on public query–tool pairs
 * (MetaTool's training split, LiveMCPBench's training split) by bench/toolsearch/train.ts and shipped as
 * data/associations.txt (licences in data/NOTICE.md). A query term expands to its associated tool terms
 * at `learnedWeight` × the association's strength (normalised PMI, 0–1). Loaded once per process, on
 * first use; a missing file only loses the expansion. Nothing is downloaded or fitted at run time.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ASSOCIATIONS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "data", "associations.txt");

/** stemmed query term → [stemmed tool term, strength 0–1] pairs, strongest first. */
export type AssociationTable = ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>;

let table: AssociationTable | undefined;

/** Parse the data file's format: `# …` header lines, then `term<TAB>tool-term:strength tool-term:strength …`. */
export function parseAssociations(text: string): Map<string, Array<[string, number]>> {
  const m = new Map<string, Array<[string, number]>>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const tab = line.indexOf("\t");
    if (tab < 0) continue;
    const list: Array<[string, number]> = [];
    for (const e of line.slice(tab + 1).split(" ")) {
      const c = e.lastIndexOf(":");
      if (c > 0) list.push([e.slice(0, c), Number(e.slice(c + 1))]);
    }
    m.set(line.slice(0, tab), list);
  }
  return m;
}

export function formatAssociations(header: string[], t: AssociationTable): string {
  const lines = header.map((h) => `# ${h}`);
  for (const [k, v] of [...t].sort((a, b) => (a[0] < b[0] ? -1 : 1))) lines.push(`${k}\t${v.map(([u, s]) => `${u}:${s.toFixed(2)}`).join(" ")}`);
  return lines.join("\n") + "\n";
}

/** The shipped table (empty when the file is missing). */
export function associations(): AssociationTable {
  if (table) return table;
  let text = "";
  try {
    text = fs.readFileSync(ASSOCIATIONS_FILE, "utf8");
  } catch {
    // no data file: no learned expansion
  }
  return (table = parseAssociations(text));
}

const reverseCache = new WeakMap<AssociationTable, Map<string, string[]>>();

/** tool term → the query terms most associated with it (at most 8): the translation model read backwards, for a tool's related field. */
export function reverseAssociations(t: AssociationTable = associations()): ReadonlyMap<string, readonly string[]> {
  let r = reverseCache.get(t);
  if (r) return r;
  const acc = new Map<string, Array<[string, number]>>();
  for (const [q, list] of t) for (const [u, s] of list) {
    let l = acc.get(u);
    if (!l) acc.set(u, (l = []));
    l.push([q, s]);
  }
  r = new Map([...acc].map(([u, l]) => [u, l.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 8).map((x) => x[0])]));
  reverseCache.set(t, r);
  return r;
}

const scoredCache = new WeakMap<AssociationTable, Map<string, Array<readonly [string, number]>>>();

/** tool term → every query term associated with it and the strength: the table read backwards, for the expansion field. */
export function toolSideAssociations(t: AssociationTable = associations()): ReadonlyMap<string, ReadonlyArray<readonly [string, number]>> {
  let r = scoredCache.get(t);
  if (r) return r;
  r = new Map();
  for (const [q, list] of t) for (const [u, s] of list) {
    let l = r.get(u);
    if (!l) r.set(u, (l = []));
    l.push([q, s]);
  }
  scoredCache.set(t, r);
  return r;
}
