/**
 * The vocabulary of the AGENTS.md compiler: the words that make a sentence a ban, an ask or a reminder,
 * the verbs that say what a code span is (a command, a path to edit, a path to read), the programs a
 * plain word may name, and the kinds of change a reminder may be scoped to ("Go code" → `**\/*.go`).
 */

/** A prohibition. "no" only counts as a label ("NO force pushes:"), see LABEL. */
export const PROHIBIT = /\b(never|do\s+not|don['’]t|dont|must\s+not|mustn['’]t|may\s+not|shall\s+not|should\s+not|shouldn['’]t|cannot|can['’]t|not\s+allowed\s+to|forbidden|prohibited|under\s+no\s+circumstances)\b/i;
/** An ask: before the action, a person says yes. Gated by a cheap test (the full pattern backtracks a lot). */
const ASK_FULL = /\b(ask\s+(?:the\s+user\s+|the\s+maintainers?\s+|me\s+|a\s+human\s+|for\s+(?:explicit\s+)?(?:approval|permission|confirmation)\s+)?(?:first\b|before)|confirm\s+(?:with\s+(?:\w+\s+){1,2})?before|check\s+with\s+\w+(?:\s+\w+)?\s+before|get\s+(?:explicit\s+)?(?:approval|permission|sign-off|confirmation)\s+before|requires?\s+(?:explicit\s+)?(?:approval|confirmation|permission)|only\s+(?:with|after)\s+(?:explicit\s+)?(?:approval|permission|asking))/i;
const ASK_GATE = /ask|confirm|approv|permission|sign-off|check\s+with/i;
export const ASK = {
  test: (s: string) => ASK_GATE.test(s) && ASK_FULL.test(s),
  exec: (s: string) => (ASK_GATE.test(s) ? ASK_FULL.exec(s) : null),
};
/** "do not X unless asked": a ban lifted by a person's request, i.e. an ask. */
const UNLESS_FULL = /\b(?:unless|until|except\s+(?:when|if))\s+(?:the\s+user\s+|a\s+maintainer\s+|you\s+are\s+|you['’]re\s+|it\s+is\s+|explicitly\s+)*(?:explicitly\s+|specifically\s+)?(?:asked|requested|instructed|told|asks|requests|approves|approved)\b|\b(?:autonomously|proactively|unprompted|on\s+your\s+own(?:\s+initiative)?)\b|\bwithout\s+(?:first\s+)?asking(?:\s+(?:first|the\s+user|a\s+human|me))?\b|\bwithout\s+(?:(?:an?|the|your|their)\s+)?(?:(?:explicit|prior|manual|written|human|direct)\s+)*(?:approval|permission|being\s+asked|a\s+request|request|instructions?|consent|confirmation|sign-?off|go-ahead)\b(?:\s+(?:to\s+\w+|from\s+(?:a\s+|the\s+|your\s+)?\w+|of\s+(?:your|the|a)\s+\w+|by\s+(?:a\s+|the\s+)?\w+))?|\bonly\s+(?:\w+\s+){0,3}(?:if|when)\s+(?:the\s+user|a\s+human|a\s+maintainer|you\s+are|you['’]re|explicitly)\b[^.;]*\b(?:says?\s+so|asks?|asked|requests?|requested|tells?\s+you|instructed|instructs)\b/i;
// (a word every shape of it needs: the full pattern is long and most sentences have none of them)
const UNLESS_GATE = /unless|until|except|autonomously|proactively|unprompted|own|without|only/i;
export const UNLESS_ASKED = {
  test: (s: string) => UNLESS_GATE.test(s) && UNLESS_FULL.test(s),
  /** The text without its first "unless asked" (as `replace(UNLESS_ASKED, "")`). */
  drop: (s: string) => (UNLESS_GATE.test(s) ? s.replace(UNLESS_FULL, "") : s),
};
/** "Never amend commits. … Only amend if the user explicitly says so.": a later sentence of the item lifts the ban on that verb to an ask. */
export const ONLY_IF_ASKED = /\bonly\s+([a-z]+)\b[^.;]{0,40}?\b(?:if|when)\s+(?:the\s+user|a\s+human|a\s+maintainer|you\s+are|you['’]re|explicitly)\b[^.;]*?\b(?:says?\s+so|asks?|asked|requests?|requested|tells?\s+you|instructed|instructs)\b/gi;
/** "do not ask for approval", "can be run without asking": permission, not an ask. */
export const NOT_ASK = /\b(?:do\s+not|don['’]t|never|no\s+need\s+to)\s+ask\b|\bwithout\s+asking\b/i;

/** A label that bans what follows its colon: "**NO force pushes**:", "FORBIDDEN:", "Never:", "Ask first:". */
export const LABEL = /^\s*(no\b[^:]{0,40}|never|forbidden|prohibited|not\s+allowed|don['’]t|do\s+not|ask\s+first|ask\s+before|requires\s+approval)\s*:\s*(.+)$/i;

export const CMD_VERBS = /\b(run|runs|running|rerun|re-run|execute|executing|exec|invoke|invoking|type|typing|call|calling|use|using|build|building|install|installing|start|starting|launch|launching|pipe|piping|pass|passing)\b/gi;
export const EDIT_VERBS = /\b(edit|edits|editing|edited|hand-edit|hand-edited|modify|modifying|modified|change|changing|changed|touch|touching|touched|write|writing|written|overwrite|overwriting|update|updating|updated|delete|deleting|deleted|remove|removing|removed|rename|renaming|move|moving|commit\s+changes\s+to|alter|altering)\b/gi;
/** "Never commit `.env` files": the path must not be staged. */
export const COMMIT_VERBS = /\b(commit|commits|committing|check\s+in|checking\s+in|stage|staging)\b/gi;
export const READ_VERBS = /\b(read|reading|open|opening|cat|view|viewing|access|accessing|print|printing|display|displaying|log|logging|expose|exposing)\b/gi;

/** Programs a plain word (no code span) may name: "only uv, never pip", "yarn, not npm". */
export const PROGRAMS = new Set(
  "git gh npm npx pnpm yarn bun bunx node deno ts-node tsx pip pip3 pipx uv uvx poetry conda mamba python python3 pytest cargo rustup go make just docker podman kubectl helm terraform rm curl wget sudo brew apt apt-get zig swift xcodebuild mvn gradle bazel dotnet composer bundle gem rake ruff black mypy pyright eslint prettier tsc jest vitest playwright hyperfine afl-tmin afl-cmin afl-fuzz afl-showmap rg grep find sed awk chmod chown ssh scp rsync psql mysql redis-cli aws gcloud az heroku vercel netlify flyctl wrangler tox nox hatch pdm rye turbo nx lerna".split(" "),
);

/** Plain-word actions that name a command: "never create a PR", "never force-push, amend, or squash". */
export const PHRASES: Array<{ re: RegExp; rules: string[] }> = [
  // ("an open PR" is no action; "creating draft PRs" bans the draft)
  { re: /\b(?:creat(?:e|ing)|open(?:ing)?|fil(?:e|ing)|submit(?:ting)?|mak(?:e|ing))\s+(?:a\s+|any\s+|new\s+)?draft\s+(?:prs?|pull\s+requests?)\b/i, rules: ["Bash(gh pr create --draft *)"] },
  { re: /(?<!\b(?:an?|the|any|your|their|existing|already)\s+)\b(?:creat(?:e|ing)|open(?:ing)?|file|submit(?:ting)?|make|making)\s+(?:a\s+|an\s+|any\s+|new\s+)?(?:issues?\s+(?:or|and)\s+)?(?:pr|prs|pull\s+requests?)\b/i, rules: ["Bash(gh pr create *)"] },
  { re: /\b(?:creat(?:e|ing)|open(?:ing)?|file|submit(?:ting)?)\s+(?:a\s+|an\s+|any\s+|new\s+)?(?:(?:pr|pull\s+request)s?\s*(?:,\s*(?:or\s+)?|\s+or\s+|\s+and\s+)(?:an?\s+)?)?issues?\b/i, rules: ["Bash(gh issue create *)"] },
  // (a comment on GitHub, not in code: "leave a comment", "post comments on PRs")
  { re: /\b(?:leav(?:e|ing)|post(?:ing)?)\s+(?:a\s+|any\s+)?comments?\b|\b(?:add(?:ing)?|writ(?:e|ing))\s+(?:a\s+|any\s+)?comments?\s+on\s+(?:github|a\s+pr|an?\s+issue|prs|issues|pull\s+requests?)\b/i, rules: ["Bash(gh pr comment *)", "Bash(gh issue comment *)"] },
  { re: /\b(?:create|publish|cut)\s+(?:a\s+|any\s+)?(?:github\s+)?releases?\b/i, rules: ["Bash(gh release create *)"] },
  { re: /\b(?:post|comment)\s+(?:anything\s+)?(?:to|on)\s+github\b/i, rules: ["Bash(gh pr comment *)", "Bash(gh issue comment *)", "Bash(gh api *)"] },
  { re: /\bforce[- ]?push(?:es|ing)?\b|\bpush\s+(?:with\s+)?--force\b|\bforce\s+pushes\b/i, rules: ["Bash(git push --force *)"] },
  { re: /\bamend(?:ing)?\b/i, rules: ["Bash(git commit --amend *)"] },
  { re: /\bsquash(?:ing)?\b/i, rules: ["Bash(git merge --squash *)"] },
  { re: /\brebase\b/i, rules: ["Bash(git rebase *)"] },
  { re: /\b(?:hard\s+reset|reset\s+--hard|git\s+reset)\b/i, rules: ["Bash(git reset --hard *)"] },
  { re: /\bstash(?:ing)?\b/i, rules: ["Bash(git stash *)"] },
  { re: /\b(?:create|add)\s+(?:a\s+|another\s+|new\s+)?(?:git\s+)?worktrees?\b|\b(?:create|switch\s+to)\s+(?:or\s+switch\s+to\s+)?(?:another|a\s+new|a\s+different)\s+git\s+worktree\b/i, rules: ["Bash(git worktree add *)"] },
  { re: /\b(?:create|switch)\s+(?:or\s+switch\s+)?(?:to\s+)?(?:new\s+|other\s+|another\s+)?branch(?:es)?\b/i, rules: ["Bash(git switch *)", "Bash(git checkout -b *)"] },
  { re: /\bpush(?:ing)?\s+(?:directly\s+)?(?:to\s+)?`?(main|master)`?(?![\w-])|\bpush(?:ing)?\s+(?:directly\s+)?(?:to|on|onto|into)\s+(?:the\s+)?`([\w./-]+)`/i, rules: ["Bash(git push * $1 *)"] },
  { re: /\b(?:updat(?:e|ing)|upgrad(?:e|ing)|bump(?:ing)?)\s+(?:the\s+|any\s+)?(?:dependencies|dependency|packages|deps)\b/i, rules: ["Bash(npm update *)", "Bash(yarn upgrade *)", "Bash(yarn up *)", "Bash(pnpm update *)", "Bash(pnpm up *)", "Bash(cargo update *)", "Bash(poetry update *)", "Bash(uv lock --upgrade *)"] },
  { re: /\b(?:add(?:ing)?|install(?:ing)?)\s+(?:new\s+|any\s+|more\s+)?(?:dependencies|dependency|packages?|deps)\b/i, rules: ["Bash(uv add *)", "Bash(poetry add *)", "Bash(pnpm add *)", "Bash(yarn add *)", "Bash(npm install *)", "Bash(cargo add *)", "Bash(go get *)"] },
  // ("Ask before generating new files": a new file is written with Write; editing one is not)
  { re: /\b(?:creat|generat|add|writ|introduc)(?:e|es|ing)?\s+(?:any\s+|a\s+|more\s+)?new\s+files?\b/i, rules: ["Write"] },
  { re: /\b(?:modify|modifying|change|changing|edit|editing|touch|touching)\s+(?:the\s+)?ci\b/i, rules: ["Edit(.github/workflows/**)", "Edit(.gitlab-ci.yml)", "Edit(.circleci/**)"] },
];

/** Kinds of change a reminder may be scoped to, as Edit-rule path patterns. */
export const KINDS: Array<{ re: RegExp; paths: string[] }> = [
  { re: /\b(?:rust\s+)?dependenc(?:y|ies)\b|\bdeps\b/i, paths: ["**/Cargo.toml", "**/Cargo.lock", "**/package.json", "**/pyproject.toml", "**/requirements*.txt", "**/go.mod", "**/go.sum", "**/Gemfile", "**/uv.lock", "**/pnpm-lock.yaml", "**/package-lock.json", "**/yarn.lock"] },
  { re: /\bgo\s+(?:code|files?|sources?|changes?)\b/i, paths: ["**/*.go"] },
  { re: /\b(?:generated\s+)?(?:docs|documentation)\b/i, paths: ["docs/**", "**/*.md", "**/*.mdx", "**/*.rst"] },
  { re: /\brust\s+(?:code|files?|sources?|changes?)\b/i, paths: ["**/*.rs"] },
  { re: /\bpython\s+(?:code|files?|sources?|changes?)\b/i, paths: ["**/*.py"] },
  { re: /\b(?:typescript|ts)\s+(?:code|files?|sources?|changes?)\b/i, paths: ["**/*.ts", "**/*.tsx"] },
  { re: /\b(?:javascript|js)\s+(?:code|files?|sources?|changes?)\b/i, paths: ["**/*.js", "**/*.jsx", "**/*.mjs"] },
  { re: /\bzig\s+(?:code|files?|sources?|changes?)\b/i, paths: ["**/*.zig"] },
  { re: /\bswift\s+(?:code|files?|sources?|changes?)\b/i, paths: ["**/*.swift"] },
  { re: /\bc\+\+\s+(?:code|files?)\b/i, paths: ["**/*.cpp", "**/*.cc", "**/*.hpp", "**/*.h"] },
  { re: /\bcss\b/i, paths: ["**/*.css", "**/*.scss"] },
  { re: /\bmodular\s+files?\b/i, paths: ["**/modular_*.py"] },
  { re: /\bdocs?\s+tocs?\b|\btable\s+of\s+contents\b/i, paths: ["**/_toctree.yml"] },
  { re: /\bsnapshot\s+files?\b/i, paths: ["**/*.snap"] },
  { re: /\bproto(?:buf)?\s+files?\b|\.proto\b/i, paths: ["**/*.proto"] },
  { re: /\bmigrations?\b/i, paths: ["**/migrations/**"] },
  { re: /\b(?:docs?|documentation)\s+pages?\b/i, paths: ["**/*.md", "**/*.mdx"] },
  { re: /\bworkflow\s+files?\b|\bgithub\s+(?:actions\s+)?workflows?\b/i, paths: [".github/workflows/**"] },
];

/** The kinds an edit ban may name in words: "Never edit snapshot files". */
export const EDIT_KINDS: Array<{ re: RegExp; paths: string[] }> = [
  { re: /\bchangeset\s+files?\b/i, paths: [".changeset/*.md"] },
  { re: /\bsnapshot\s+files?\b/i, paths: ["**/*.snap"] },
  { re: /\block\s*files?\b|\blockfiles?\b/i, paths: ["**/package-lock.json", "**/pnpm-lock.yaml", "**/yarn.lock", "**/Cargo.lock", "**/uv.lock", "**/poetry.lock"] },
  { re: /\b(?:the\s+)?migrations?\s+(?:files?|that\s+have\s+been\s+applied)\b/i, paths: ["**/migrations/**"] },
];

/** Words that make a sentence a preference or soft advice, never a tool rule. */
export const SOFT = /\b(avoid|prefer|preferably|try\s+to|try\s+not\s+to|generally|usually|ideally|where\s+possible|when\s+possible|if\s+possible|recommended|consider|by\s+default)\b/i;
/** Words that scope a ban to a condition the host cannot see. */
export const CONDITION = /\b(when|whenever|while|if|unless|until|without|between|during|except|only\s+(?:if|when|for|in|on|with|to)|for\s+(?:routine|local|new|large|small)|after|before)\b/i;
/** Words after a ban that turn it into advice about something else: "never forget to run". */
export const NOT_A_BAN = /\b(forget|forgetting|forgot|skip|skipping|hesitate|fail|neglect|worry|be\s+afraid|go\s+idle|end\s+a\s+turn|leave)\b/i;
/** Code constructs: a ban on them is style advice about code, not a tool call. */
export const CODE_WORDS = /\b(class|classes|function|functions|method|methods|type|types|field|fields|attribute|attributes|variable|variables|import|imports|statement|statements|syntax|pattern|patterns|decorator|annotation|comments?|docstrings?|prefix|prefixed|assertion|assertions|exception|exceptions|arguments?|parameters?|keyword|struct|structs|enum|enums|fragment|fragments|helpers?|payload|macro|trait|generic|inline)\b/i;
/** Leading words of a sentence that say its subject is someone or something other than the agent. */
export const OTHER_SUBJECT = /^(?:(?:it|they|this|that|the\s+\w+(?:\s+\w+)?|users?|maintainers?|reviewers?|ci|codecs?|decoders?|tests?|callers?|\w+s)\s+(?:must|should|may|shall|will|can|cannot|does|do)\b)/i;
