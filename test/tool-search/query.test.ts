import { describe, expect, it } from "vitest";
import { parseQuery, search, buildDeferredIndex } from "../../plugins/tool-search/search.ts";
import { ToolIndex, DEFAULT_OPTIONS } from "../../plugins/tool-search/rank.ts";
import { words, terms, SpanTable } from "../../plugins/tool-search/text.ts";
import { indexTerms, plainWords, buildIndex, leadLength } from "../../plugins/tool-search/index-build.ts";
import { TermBuffer } from "../../plugins/tool-search/term-buffer.ts";
import { fakeTool, GITHUB, SLACK, GITLAB } from "./fixtures.ts";

const tools = [...GITHUB, ...SLACK, ...GITLAB].map((t) => fakeTool(t, "fake"));
const ix = buildDeferredIndex(1, tools);
const names = (q: string, limit = 5) => search(ix, q, limit).tools.map((t) => t.name);

describe("query forms", () => {
  it("parses select, keywords and +required", () => {
    expect(parseQuery("select:Read,Edit, Grep")).toEqual({ kind: "select", names: ["Read", "Edit", "Grep"] });
    expect(parseQuery("SELECT:mcp__a__b")).toEqual({ kind: "select", names: ["mcp__a__b"] });
    expect(parseQuery("notebook jupyter")).toEqual({ kind: "keywords", required: [], text: "notebook jupyter" });
    expect(parseQuery("+Slack send  +message now")).toEqual({ kind: "keywords", required: ["slack", "message"], text: "send now" });
    expect(parseQuery("a + b")).toEqual({ kind: "keywords", required: [], text: "a + b" });
  });

  it("select by full name, in the order asked, without duplicates", () => {
    expect(names("select:mcp__slack__send_message,mcp__github__merge_pull_request,mcp__slack__send_message")).toEqual([
      "mcp__slack__send_message",
      "mcp__github__merge_pull_request",
    ]);
  });

  it("select by an unambiguous short MCP name resolves; an ambiguous one does not and says so", () => {
    expect(names("select:list_issues")).toEqual(["mcp__github__list_issues"]);
    const o = search(ix, "select:create_issue,send_message", 5);
    expect(o.tools.map((t) => t.name)).toEqual(["mcp__slack__send_message"]);
    expect(o.ambiguous).toEqual([{ name: "create_issue", candidates: ["mcp__github__create_issue", "mcp__gitlab__create_issue"] }]);
  });

  it("select of an unknown name suggests similar names", () => {
    const o = search(ix, "select:mcp__github__list_issue", 5);
    expect(o.tools).toEqual([]);
    expect(o.unresolved).toEqual(["mcp__github__list_issue"]);
    expect(o.suggestions.join(" ")).toContain("mcp__github__list_issues");
  });

  it("+required keeps only tools whose name contains every +term and ranks by the rest", () => {
    expect(names("+slack message")[0]).toBe("mcp__slack__send_message");
    expect(names("+slack message").every((n) => n.includes("slack"))).toBe(true);
    expect(names("+github issue")).toEqual(expect.arrayContaining(["mcp__github__create_issue", "mcp__github__list_issues"]));
    expect(names("+github issue").some((n) => n.includes("gitlab"))).toBe(false);
  });

  it("+server alone lists that server's tools up to the limit", () => {
    expect(names("+github", 10).sort()).toEqual(GITHUB.map((t) => `mcp__github__${t.name}`).sort());
    expect(names("+github", 2)).toHaveLength(2);
  });

  it("nothing found: suggestions name +server forms and select", () => {
    const o = search(ix, "+nosuchserver frobnicate", 5);
    expect(o.tools).toEqual([]);
    expect(o.suggestions.join("\n")).toMatch(/\+github/);
    expect(o.suggestions.join("\n")).toMatch(/select:/);
  });
});

describe("ranking", () => {
  it("splits identifiers into words", () => {
    expect(words("mcp__github__create_pull_request")).toEqual(["mcp", "github", "create", "pull", "request"]);
    expect(words("createPullRequest HTTPServer v2beta")).toEqual(["create", "pull", "request", "http", "server", "v", "2", "beta"]);
    expect(words("browser-take-screenshot")).toEqual(["browser", "take", "screenshot"]);
    expect(terms("the listing of issues")).toEqual(["list", "issu"]);
  });

  it("ranks the obvious tool first on fixed fixtures", () => {
    expect(names("merge pull request")[0]).toBe("mcp__github__merge_pull_request");
    expect(names("post a message to a channel")[0]).toBe("mcp__slack__send_message");
    expect(names("read file from gitlab")[0]).toBe("mcp__gitlab__get_file_contents");
    expect(names("what timezone is this user in")[0]).toBe("mcp__slack__get_user_profile");
    expect(names("open a PR")[0]).toBe("mcp__github__create_pull_request"); // synonym: PR → pull request, open → create
  });

  it("matches parameter names and descriptions", () => {
    expect(names("issue title owner")[0]).toBe("mcp__github__create_issue");
  });

  it("is deterministic: equal scores keep pool order", () => {
    const docs = [
      { name: "b", description: "same words here" },
      { name: "a", description: "same words here" },
    ];
    expect(new ToolIndex(docs).search("same words").map((h) => h.name)).toEqual(["b", "a"]);
  });

  it("matches regardless of case and script (ASCII fast path and Unicode path)", () => {
    const docs = [
      { name: "upper", description: "CREATE a NEW Issue in the TRACKER" },
      { name: "unicode", description: "Ärger mit Überweisungen prüfen" },
      { name: "other", description: "something unrelated entirely" },
    ];
    const ix2 = new ToolIndex(docs);
    expect(ix2.search("create new issue tracker")[0]!.name).toBe("upper");
    expect(ix2.search("überweisungen")[0]!.name).toBe("unicode");
    const t = new SpanTable(4);
    t.set("issue", 7);
    expect(t.get("AN ISSUE", 3, 8)).toBe(7);
    expect(t.get("an issues", 3, 9)).toBeUndefined();
    for (let i = 0; i < 100; i++) t.set(`w${i}`, i); // grows
    expect(t.get("xW42x", 1, 4)).toBe(42);
  });

  it("the index builder's one-pass scanner reads the same terms as terms() (ASCII, camelCase, acronyms, Unicode, ranges)", () => {
    const texts = [
      "mcp__github__create_pull_request createPullRequest HTMLParser getHTTPResponseCode v2Api utf8 OAuth2Token",
      "Ärger mit Überweisungen prüfen — “smart quotes” naïve café ÉCOLE ÀBC",
      "ΣΊΣΥΦΟΣ ÉTÉ",
      "emoji 🎉 party_time x86_64 ARM64v8 a-b.c/d e__f",
      "",
      "   ",
      "The Quick BROWN fox: it's 2024-06-01T10:00Z; IDs like pi_3NcX9u2e and U024BE7LH.",
      ...[...GITHUB, ...SLACK, ...GITLAB].map((t) => `${t.name} ${t.description ?? ""}`),
    ];
    for (const t of texts) {
      expect(indexTerms(t, DEFAULT_OPTIONS)).toEqual(terms(t));
      const mid = Math.floor(t.length / 2);
      expect([...indexTerms(t, DEFAULT_OPTIONS, 0, mid), ...indexTerms(t, DEFAULT_OPTIONS, mid)]).toEqual([...terms(t.slice(0, mid)), ...terms(t.slice(mid))]);
    }
    // one buffer over every text twice: the second time each word is found in the builder's trie (prefixes of
    // known words, words that leave it, a Kelvin sign that lower-cases to ASCII "k", and enough words to grow it)
    const rnd = (i: number) => ((i * 2654435761) >>> 0).toString(26).replace(/\d/g, (d) => "qrstuvwxyz"[+d]!);
    const more = ["pull pul pulls pullRequest PULL request re r", "apik api APIKey HTTPServer https", "\u212Aelvin kelvin KELVIN", Array.from({ length: 3000 }, (_, i) => rnd(i)).join(" ")];
    const tb = new TermBuffer(DEFAULT_OPTIONS);
    for (let round = 0; round < 2; round++)
      for (const t of [...texts, ...more]) {
        const len0 = tb.len;
        tb.analyse(t);
        expect(Array.from(tb.buf.subarray(len0, tb.len), (id) => tb.terms[id])).toEqual(terms(t));
      }
    // lower-casing "İ" adds a combining dot (the text grows): the general path reads it, as before the scanner
    expect(indexTerms("İstanbul ΣΊΣΥΦΟΣ", DEFAULT_OPTIONS)).toContain("σίσυφος");
  });

  it("the first sentence ends where /^[\\s\\S]*?[.!?](\\s|$)/ says", () => {
    const cases = ["Create an issue. Then more.", "v1.2 is out!", "What? Yes", "No end", "", ".", "a.b.c. d", "End.\u00a0Next", "End.\u3000Next", "End.\u2028x", "Why?!\tok", "e.g.x. y", "…. z", ". a"];
    for (const c of cases) expect(leadLength(c), c).toBe((/^[\s\S]*?[.!?](\s|$)/.exec(c)?.[0] ?? c).length);
  });

  it("parameter descriptions are read one by one (a server's repeats copied) with the terms and budget of the joined text", () => {
    const long = "Owner of the repository, ÀBC camelCaseWord. ".repeat(12); // > 300: sliced per parameter
    const schema = (extra: string) => ({ type: "object", properties: { owner: { type: "string", description: "The repository owner" }, repo: { type: "string", description: long }, state: { enum: ["open", "closed"] }, q: { type: "string", description: `${extra} ${long}` } } });
    const docs = [
      { name: "a", server: "gh", description: "x", inputSchema: schema("first") },
      { name: "b", server: "gh", description: "y", inputSchema: schema("second") },
      { name: "c", server: "other", description: "z", inputSchema: schema("third") },
    ];
    for (const maxDescChars of [1024, 300, 25, 20, 0]) {
      const o = { ...DEFAULT_OPTIONS, maxDescChars };
      const ix = buildIndex(docs, o);
      const slot = ["name", "server", "serverInfo", "hint", "lead", "desc", "params", "paramDesc"].filter((f) => o.weights[f as "name"] > 0).indexOf("paramDesc");
      docs.forEach((d, i) => {
        const joined = ["The repository owner", long.slice(0, 300), "open closed", `${d.inputSchema.properties.q.description}`.slice(0, 300)].join(" ").slice(0, maxDescChars);
        const b = (i * ix.slots + slot) * 2;
        expect(Array.from(ix.buf.subarray(ix.ranges[b]!, ix.ranges[b + 1]!), (t) => ix.terms[t])).toEqual(terms(joined));
      });
    }
  });

  it("a dotted capital I and combining marks stay in their word: İstanbul is found as istanbul, Hindi words are not cut", () => {
    expect(words("İstanbul")).toEqual(["istanbul"]);
    expect(terms("İstanbul")).toEqual(indexTerms("İstanbul", DEFAULT_OPTIONS));
    expect(plainWords("İstanbul weather")).toEqual(["istanbul", "weather"]);
    expect(words("हिन्दी समाचार")).toEqual(["हिन्दी", "समाचार"]);
    expect(indexTerms("हिन्दी समाचार", DEFAULT_OPTIONS)).toEqual(terms("हिन्दी समाचार"));
    const docs = [
      fakeTool({ server: "weather", name: "forecast", description: "Weather forecast for İstanbul and Ankara" }, "fake"),
      fakeTool({ server: "news", name: "hindi_headlines", description: "हिन्दी समाचार headlines" }, "fake"),
      ...tools,
    ];
    const ix2 = buildDeferredIndex(1, docs);
    expect(search(ix2, "istanbul", 5).tools.map((t) => t.name)[0]).toBe("mcp__weather__forecast");
    expect(search(ix2, "समाचार", 5).tools.map((t) => t.name)[0]).toBe("mcp__news__hindi_headlines");
  });

  it("returns nothing for words no tool has, and respects the limit", () => {
    expect(names("zzzqqq")).toEqual([]);
    expect(names("issue", 2)).toHaveLength(2);
  });

  it("a file name in the query adds the file concept (and can be switched off)", () => {
    const docs = [
      { name: "find_projects", description: "Find projects below a root folder." },
      { name: "search_files", description: "Search for files matching a pattern." },
    ];
    const q = "every package.json in the tree";
    expect(new ToolIndex(docs).queryTerms(q).get("file")).toBe(0.5);
    expect(new ToolIndex(docs, { fileHint: 0 }).queryTerms(q).has("file")).toBe(false);
    expect(new ToolIndex(docs).queryTerms("find every project below the root").has("file")).toBe(false);
    expect(new ToolIndex(docs).search(q)[0]!.name).toBe("search_files");
    expect(new ToolIndex(docs, { fileHint: 0 }).search(q).map((h) => h.name)).not.toContain("search_files");
  });

  it("workflow companions: the tool that produces the id the best hit requires joins the first page, below what ranked higher", () => {
    const docs = [
      { name: "mcp__ctx__query_docs", description: "Query library docs and code examples.", inputSchema: { type: "object", properties: { libraryId: { type: "string" }, query: { type: "string" } }, required: ["libraryId", "query"] } },
      ...Array.from({ length: 6 }, (_, i) => ({ name: `mcp__other${i}__docs_${i}`, description: `Search docs and query documentation pages ${i}.` })),
      { name: "mcp__ctx__resolve_library_id", description: "Resolve a package name to an id." },
      { name: "mcp__ps__kill_process", description: "Kill a process.", inputSchema: { type: "object", properties: { pid: { type: "number" } }, required: ["pid"] } },
      { name: "mcp__ps__list_processes", description: "Show running programs." },
    ];
    const on = new ToolIndex(docs).search("query docs for next.js", { limit: 5 }).map((h) => h.name);
    expect(on[0]).toBe("mcp__ctx__query_docs");
    expect(on).toContain("mcp__ctx__resolve_library_id");
    expect(on.indexOf("mcp__ctx__resolve_library_id")).toBe(4);
    const off = new ToolIndex(docs, { companions: false }).search("query docs for next.js", { limit: 5 }).map((h) => h.name);
    expect(off).not.toContain("mcp__ctx__resolve_library_id");
    expect(off.slice(0, 4)).toEqual(on.slice(0, 4));
    expect(new ToolIndex(docs).search("kill process", { limit: 5 }).map((h) => h.name)).toContain("mcp__ps__list_processes");
  });

  it("developer-tooling synonyms reach intent words (thumbs-up → reaction, build → workflow job)", () => {
    const docs = [
      { name: "add_issue_reaction", description: "Add a reaction to an issue." },
      { name: "list_issues", description: "List the issues of a repository." },
      { name: "get_job_logs", description: "Download logs for a workflow job." },
      { name: "get_commit", description: "Get a commit." },
    ];
    const ix = new ToolIndex(docs);
    expect(ix.search("give issue 301 a thumbs-up")[0]!.name).toBe("add_issue_reaction");
    expect(ix.search("why did my build fail, show logs")[0]!.name).toBe("get_job_logs");
    expect(new ToolIndex(docs, { synonyms: 0 }).search("give issue 301 a thumbs-up")[0]!.name).not.toBe("add_issue_reaction");
  });
});

describe("WordNet-derived lexicon", () => {
  const docs = [
    { name: "shop__issue_refund", description: "Issue a refund for a charge." },
    { name: "shop__create_invoice", description: "Create an invoice for a customer." },
    { name: "shop__list_charges", description: "List charges of a customer." },
    { name: "garden__water_plants", description: "Start the irrigation of a garden zone." },
  ];
  it("loads definitions and synonyms of common words", async () => {
    const { relatedWords, lexiconSynonyms } = await import("../../plugins/tool-search/lexicon.ts");
    expect(relatedWords("refund")).toMatch(/money/);
    expect(lexiconSynonyms("refund")).toContain("repay");
    expect(relatedWords("zzqx")).toBe("");
  });
  it("a tool's name words' definitions reach intent phrasing that shares no word with the tool", () => {
    const q = "the buyer wants their money returned";
    expect(new ToolIndex(docs).search(q, { limit: 1 })[0]?.name).toBe("shop__issue_refund");
    // without the lexicon the same query has nothing to go on
    const plain = new ToolIndex(docs, { relatedFromLexicon: false, lexiconWeight: 0, learnedWeight: 0, learnedRelated: false }).search(q, { limit: 1 });
    expect(plain[0]?.name).not.toBe("shop__issue_refund");
  });
});

describe("learned associations (data/associations.txt, fitted by bench/toolsearch/train.ts)", () => {
  it("the shipped table parses, names its training data, and expands a query word to tool words", async () => {
    const { associations, ASSOCIATIONS_FILE, parseAssociations, formatAssociations, reverseAssociations } = await import("../../plugins/tool-search/learned.ts");
    const fs = await import("node:fs");
    const head = fs.readFileSync(ASSOCIATIONS_FILE, "utf8").split("\n").filter((l) => l.startsWith("#")).join("\n");
    expect(head).toMatch(/MetaTool train split/);
    expect(head).toMatch(/dev queries were not used/);
    // the defaults are what the training script chose on its tune fold (not hand-set)
    const params = JSON.parse(/params (\{.*\}) \(chosen/.exec(head)![1]!);
    expect({ learnedWeight: DEFAULT_OPTIONS.learnedWeight, learnedRelated: DEFAULT_OPTIONS.learnedRelated, queryFunctionWords: DEFAULT_OPTIONS.queryFunctionWords, learnedInVocab: DEFAULT_OPTIONS.learnedInVocab }).toEqual({
      learnedWeight: params.learnedWeight,
      learnedRelated: params.learnedRelated,
      queryFunctionWords: params.queryFunctionWords,
      learnedInVocab: params.learnedInVocab,
    });
    // hyperparameters were chosen on a tune fold split by gold tool (what transfers to tools the table never saw)
    expect(head).toMatch(/split by gold tool/);
    expect(associations().size).toBeGreaterThan(1000);
    const t = parseAssociations(formatAssociations(["h"], new Map([["weather", [["forecast", 0.61] as const]]])));
    expect(t.get("weather")).toEqual([["forecast", 0.61]]);
    expect(reverseAssociations(t).get("forecast")).toEqual(["weather"]);
    const docs = [
      { name: "get_forecast", description: "Five-day outlook for a city." },
      { name: "get_news", description: "Latest headlines." },
    ];
    // "umbrella" shares no word with either tool; the learned table links it to forecast
    const learned = new Map([["umbrella", [["forecast", 0.8] as const]]]);
    expect(new ToolIndex(docs, { learned, learnedWeight: 0.5, learnedRelated: false }).search("do I need an umbrella")[0]?.name).toBe("get_forecast");
    expect(new ToolIndex(docs, { learned, learnedWeight: 0, learnedRelated: false }).search("do I need an umbrella")).toEqual([]);
    // back-off: a query word some tool already has expands at learnedInVocab × the weight ("forecast" → "outlook")
    const back = new Map([["forecast", [["outlook", 0.8] as const]]]);
    expect(new ToolIndex(docs, { learned: back, learnedWeight: 0.5, learnedInVocab: 0.25, learnedRelated: false }).queryTerms("forecast").get("outlook")).toBeCloseTo(0.5 * 0.25 * 0.8);
    expect(new ToolIndex(docs, { learned, learnedWeight: 0.5, learnedInVocab: 0, learnedRelated: false }).queryTerms("umbrella").get("forecast")).toBeCloseTo(0.4);
    expect(new ToolIndex(docs, { learned: back, learnedWeight: 0.5, learnedInVocab: 0, learnedRelated: false }).queryTerms("forecast").has("outlook")).toBe(false);
    // read backwards into the related field: the tool's name word "forecast" gains "umbrella"
    expect(new ToolIndex(docs, { learned, learnedWeight: 0, learnedRelated: true, relatedFromLexicon: false }).search("umbrella")[0]?.name).toBe("get_forecast");
    // the expansion field (an experiment, off by default): query words associated with the tool's name and first-sentence
    // terms, summed over them — "outlook" (first sentence) and "forecast" (name) both point to "rain"; "umbrella" only to forecast
    const side = new Map([["umbrella", [["forecast", 0.8] as const]], ["rain", [["forecast", 0.5] as const, ["outlook", 0.5] as const]]]);
    const exp = (k: number) => new ToolIndex(docs, { learned: side, learnedWeight: 0, weights: { ...DEFAULT_OPTIONS.weights, related: 0, expansion: 1 }, expansionTopK: k });
    expect(exp(2).search("umbrella")[0]?.name).toBe("get_forecast");
    expect(exp(1).search("umbrella")).toEqual([]); // rain (1.0) beats umbrella (0.8) for the one place
    expect(exp(1).search("rain")[0]?.name).toBe("get_forecast");
    expect(new ToolIndex(docs, { learned: side, learnedWeight: 0, weights: { ...DEFAULT_OPTIONS.weights, related: 0 } }).search("umbrella")).toEqual([]);
  });
});
