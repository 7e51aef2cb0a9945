/** ToolSearch ranking's inputs and knobs: the documents, the fields, and every technique as an option. */
import type { JsonSchema } from "../../core/index.ts";
import type { AssociationTable } from "./learned.ts";

export interface SearchDoc {
  /** The callable name (unique in the index). */
  name: string;
  /** The tool's own name without a server prefix (defaults to `name` minus `mcp__server__`). */
  shortName?: string;
  server?: string;
  /** What the server says about itself (MCP `instructions`, a registry description), truncated at 2 KB. */
  serverDescription?: string;
  description?: string;
  searchHint?: string;
  inputSchema?: JsonSchema;
  /** Words related to the tool's name words (a lexical database's synonyms and definitions); low weight. */
  related?: string;
}

/** The cross-field reranker's features (rerank.ts computes them; data/rerank.json holds a weight per feature). */
export const RERANK_FEATURES = ["verbAgree", "verbMismatch", "object", "nameHit", "descOnly", "paramHit", "server", "trap", "leadHit", "assocName"] as const;
export type RerankWeights = Record<(typeof RERANK_FEATURES)[number], number>;

export const FIELDS = ["name", "server", "serverInfo", "hint", "lead", "desc", "params", "paramDesc", "related", "expansion"] as const;
export type FieldName = (typeof FIELDS)[number];

export interface RankOptions {
  /** Field weights; 0 drops the field. */
  weights: Record<FieldName, number>;
  /** Length normalisation per field. */
  b: Record<FieldName, number>;
  k1: number;
  /** Weight of lexicon synonyms (0 = off). */
  synonyms: number;
  /** Query expansion by a lexical database's synonyms (lexicon.ts, WordNet) at this weight; 0 = off. */
  lexiconWeight: number;
  /** Index the "related" field from the lexicon (definitions and synonyms of name words) when a doc has none. */
  relatedFromLexicon: boolean;
  /** Weight of vocabulary prefix matches (0 = off). */
  prefix: number;
  /** Score multiplier (1 + coverage × fraction of query words matched); 0 = off. */
  coverage: number;
  /**
   * How coverage counts a query word: "exact" — the tool has the word itself; "concept" — the tool has the
   * word or one of its expansions (synonym, prefix), credited at that expansion's weight.
   */
  coverageMode: "exact" | "concept";
  /** Score multiplier (1 + leadCoverage × idf-weighted fraction of query words — or their expansions, at their
   * weight — found in the tool's name or the first sentence of its description); 0 = off. */
  leadCoverage: number;
  /** Action agreement: when the query and the tool's name both carry an action verb (create/read/list/search/
   * update/delete/send/run classes), × (1 + verbAgree) when a class is shared, × (1 − verbMismatch) when none is. */
  verbAgree: number;
  verbMismatch: number;
  /** Weight each query word's share of coverage by its idf (rare words count more); false = every word equal. */
  coverageIdf: boolean;
  /** Score multiplier (1 + nameCoverage × weighted fraction of the tool's name words the query has); 0 = off. */
  nameCoverage: number;
  /** Weight of words inside value-like chunks of the query (ids with digits, #123); 1 = no special case. */
  valueWeight: number;
  /** Score multiplier (1 + serverBoost) for tools whose server the query names. 0 = off. */
  serverBoost: number;
  /** Stem words: Porter, a light plural/verb-ending stemmer, or none. */
  stemming: "porter" | "light" | false;
  /** Description characters indexed per tool (and per tool for all parameter descriptions together). */
  maxDescChars: number;
  /** "plain": lower-case, split on non-alphanumerics, nothing else (the baseline's analyser). */
  analyzer?: "full" | "plain";
  /** Weight of the term "file" added when the query names a file (`package.json`, `*.ts`, `src/app.py`); 0 = off. */
  fileHint: number;
  /**
   * Workflow companions: when the best hit needs an id it cannot get by itself (`libraryId`, `pid`), the tool
   * of the same server that produces it (resolve/list/find/search … library, process) joins the results
   * right after it. false = off.
   */
  companions: boolean;
  /** Learned query-word → tool-word associations (learned.ts) at this weight × strength; 0 = off. */
  learnedWeight: number;
  /** Learned expansions of a query term the index already has are scaled by this (1 = no back-off; 0 = only words no tool has expand). */
  learnedInVocab: number;
  /** At query time, use at most this many associations per query term (the table keeps 8). */
  learnedTopK: number;
  /** Add to each name word's related words the query words the learned table associates with it (document-side translation). */
  learnedRelated: boolean;
  /**
   * The expansion field (weight `weights.expansion`; 0 = off): the query terms the learned table associates with the
   * tool's name and first-sentence terms, summed over them, best `expansionTopK` — a translation model read from the
   * tool's side, so a tool's likely query words are in its document.
   */
  expansionTopK: number;
  /** Drop more function words from the query only (NLTK's English list beyond STOP_WORDS: before, after, up, out …). */
  queryFunctionWords: boolean;
  /** Server-then-tool: × (1 + serverStage × the server's share of the best server's summed top-30 score); 0 = off. */
  serverStage: number;
  /**
   * Server-then-tool with server documents: each server is one document (its name and description, its tools' names
   * and first sentences) in a second index; a candidate's score × (1 + serverDocStage × its server's score / the best
   * server's score), over the first stage's best 30. 0 = off.
   */
  serverDocStage: number;
  /** Experiment (bench/toolsearch/salience-fit.ts): a multiplier per stemmed query word, learned from training pairs (how often the word is in the gold tool's text); absent = 1. */
  salience?: ReadonlyMap<string, number>;
  /** An association table to use instead of the shipped one (training and tests). */
  learned?: AssociationTable;
  /**
   * Query expansion by word-vector nearest neighbours (`neighbours`) at this weight × cosine; 0 = off. An
   * experiment (bench/toolsearch/embed.ts): no table ships, since it did not pay on the training tune fold.
   */
  neighbourWeight: number;
  /** The neighbour table (stem → [neighbour stem, cosine]) for `neighbourWeight`. */
  neighbours?: AssociationTable;
  /** Rerank the first stage's best this-many candidates with the cross-field reranker (rerank.ts); 0 = off. */
  rerank: number;
  /** Reranker weights to use instead of the shipped data/rerank.json (training and tests). */
  rerankWeights?: Partial<RerankWeights>;
}

export const DEFAULT_OPTIONS: RankOptions = {
  // Tuned on the toolsearch dev set (random search over these knobs), checked on LiveMCPBench and MetaTool.
  weights: { name: 4, server: 2.5, serverInfo: 0.3, hint: 2, lead: 2, desc: 0.5, params: 0.5, paramDesc: 0.5, related: 0.25, expansion: 0 },
  b: { name: 0.3, server: 0, serverInfo: 0.75, hint: 0.5, lead: 0.5, desc: 0.75, params: 0.5, paramDesc: 0.75, related: 0.75, expansion: 0.5 },
  k1: 1.6,
  synonyms: 0.6,
  lexiconWeight: 0.2,
  relatedFromLexicon: true,
  prefix: 0.4,
  coverage: 2,
  coverageMode: "exact",
  coverageIdf: false,
  leadCoverage: 0,
  verbAgree: 0,
  verbMismatch: 0,
  nameCoverage: 0.25,
  valueWeight: 0.3,
  serverBoost: 0.5,
  stemming: "porter",
  maxDescChars: 1024,
  fileHint: 0.5,
  companions: true,
  // chosen by bench/toolsearch/train.ts on a tune fold of the training pairs split by gold tool (never on the dev set)
  learnedWeight: 0.35,
  // chosen by the same script on the same tune fold (it was hand-set before)
  queryFunctionWords: true,
  serverStage: 0,
  serverDocStage: 0,
  learnedRelated: false,
  learnedTopK: 8,
  learnedInVocab: 0.25,
  expansionTopK: 12,
  neighbourWeight: 0,
  // weights fitted by bench/toolsearch/rerank-fit.ts on the training splits only (data/rerank.json)
  rerank: 20,
};

/** The plain BM25 baseline the benchmark compares against: name + description, one field, no extras. */
export const PLAIN_BM25: RankOptions = {
  weights: { name: 1, server: 0, serverInfo: 0, hint: 0, lead: 0, desc: 1, params: 0, paramDesc: 0, related: 0, expansion: 0 },
  b: { name: 0.75, server: 0.75, serverInfo: 0.75, hint: 0.75, lead: 0.75, desc: 0.75, params: 0.75, paramDesc: 0.75, related: 0.75, expansion: 0.75 },
  k1: 1.2,
  synonyms: 0,
  lexiconWeight: 0,
  relatedFromLexicon: false,
  prefix: 0,
  coverage: 0,
  coverageMode: "exact",
  coverageIdf: false,
  leadCoverage: 0,
  verbAgree: 0,
  verbMismatch: 0,
  nameCoverage: 0,
  valueWeight: 1,
  serverBoost: 0,
  stemming: false,
  maxDescChars: Infinity,
  fileHint: 0,
  companions: false,
  learnedWeight: 0,
  queryFunctionWords: false,
  serverStage: 0,
  serverDocStage: 0,
  learnedRelated: false,
  learnedTopK: 8,
  learnedInVocab: 1,
  expansionTopK: 12,
  neighbourWeight: 0,
  rerank: 0,
  analyzer: "plain",
};

export interface Hit {
  name: string;
  score: number;
  /** Position of the tool in the indexed list. */
  index: number;
}

export interface SearchOptions {
  limit?: number;
  /** Only tools for which this returns true are ranked (e.g. `+required` terms). */
  filter?: (doc: SearchDoc, index: number) => boolean;
  /**
   * Training only (bench/toolsearch/rerank-fit.ts): collect the reranker's features of the first stage's candidates
   * here (one row per hit returned, first-stage order) instead of reranking.
   */
  features?: Float64Array[];
}
