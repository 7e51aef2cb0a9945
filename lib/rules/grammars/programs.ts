/**
 * Program grammars for rule matching: which spellings of a command are the same command. A rule
 * and a command are both read through the program's grammar into a canonical form — head words
 * (`git push`), options by canonical name with their values, operands — so `Bash(git push --force *)`
 * matches `git -C . push -f`, `git push origin +main` and `git push --force-with-lease`, and
 * `Bash(curl -X POST *)` matches `curl URL -XPOST` and `curl --request=POST URL`.
 */
import { grammar, parseArgs, type Grammar, type Opt } from "./options.ts";

export interface Canon {
  head: string[];
  opts: Opt[];
  operands: string[];
  dashdash: number;
}

interface ProgramGrammar {
  spec: string;
  /** Short aliases (`R` → `r`). */
  alias?: Record<string, string>;
  /** Options a spelling implies (`-D` → delete + force; a `+ref` refspec → force). */
  implied?: (c: Canon) => void;
  g?: Grammar;
}

/** git's own options, before the subcommand (git.c). */
const GIT_GLOBAL = grammar("C: c: p P h v --paginate>p --no-pager>P --git-dir= --work-tree= --namespace= --config-env= --exec-path=? --html-path --man-path --info-path --bare --no-replace-objects --no-lazy-fetch --no-optional-locks --no-advice --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --list-cmds= --attr-source= --super-prefix= --help>h --version>v", false);

/** `git [globals] sub rest…` → its parts (sub undefined: no subcommand). */
export function gitSplit(args: readonly string[]): { globals: Opt[]; sub?: string; rest: string[]; unknown: string[] } {
  const p = parseArgs(GIT_GLOBAL, args);
  // With permute off, the first operand is the subcommand and everything after it is its own.
  const idx = args.length - p.operands.length;
  return { globals: p.opts, sub: p.operands[0], rest: args.slice(idx + 1) as string[], unknown: p.unknown };
}

const add = (c: Canon, k: string, v?: string) => c.opts.push({ k, v, raw: "" });
const has = (c: Canon, k: string) => c.opts.some((o) => o.k === k);

const CURL_SPEC =
  "X: H: d: o: u: F: A: e: b: c: T: x: m: w: K: r: C: E: D: U: Y: y: z: t: Q: P: " +
  "LskiIvfSOGgNnqRZ#0123456aBjJlMp " +
  "--request=>X --header=>H --data=>d --data-raw= --data-binary= --data-ascii= --data-urlencode= --json= --output=>o --user=>u --form=>F --form-string= " +
  "--user-agent=>A --referer=>e --cookie=>b --cookie-jar=>c --upload-file=>T --proxy=>x --max-time=>m --write-out=>w --config=>K --range=>r " +
  "--continue-at=>C --cert=>E --dump-header=>D --proxy-user=>U --url= --location>L --location-trusted --silent>s --insecure>k --include>i --head>I " +
  "--verbose>v --fail>f --fail-with-body --show-error>S --remote-name>O --remote-name-all --get>G --compressed --globoff>g --no-buffer>N --netrc>n " +
  "--retry= --retry-delay= --retry-max-time= --connect-timeout= --cacert= --capath= --key= --oauth2-bearer= --resolve= --connect-to= --http1.1 --http2 --http3 " +
  "--output-dir= --create-dirs --stderr= --trace= --trace-ascii= --unix-socket= --interface= --limit-rate= --max-filesize= --noproxy= --proto= --variable= --expand-url=";

function curlImplied(c: Canon): void {
  for (const o of c.opts) if (o.k === "X" && o.v) o.v = o.v.toUpperCase();
  for (const o of c.opts) if (o.k === "url" && o.v) c.operands.push(o.v);
  // A body (-d, -F) makes curl POST, but a rule that names -X POST names the option: no implied -X
  // (the adversarial corpus's flg-062 intends ask there, as for any curl).
}

function pushImplied(c: Canon): void {
  if (has(c, "force-with-lease") || has(c, "force-if-includes") || has(c, "mirror") || c.operands.some((o) => o.startsWith("+"))) add(c, "f");
  if (c.operands.slice(1).some((o) => /^:./.test(o))) add(c, "d");
}

function branchImplied(c: Canon): void {
  // -D is --delete --force (-M, -C likewise): keep only the long meaning, so every spelling compares equal.
  for (const [big, small] of [["D", "d"], ["M", "m"], ["C", "c"]] as const) {
    if (!has(c, big)) continue;
    c.opts = c.opts.filter((o) => o.k !== big);
    add(c, small);
    add(c, "f");
  }
}

const GIT_COMMON = "q v --quiet>q --verbose>v";
const GRAMMARS: Record<string, ProgramGrammar> = {
  rm: { spec: "dfirIRv --force>f --interactive=? --recursive>r --dir>d --verbose>v --one-file-system --no-preserve-root --preserve-root=?", alias: { R: "r" } },
  cp: {
    spec: "abdfHilLnPpRrstTuvxZ S: t: --archive>a --backup=? --force>f --interactive>i --link>l --dereference>L --no-clobber>n --no-dereference>P --preserve=? --no-preserve= --parents --recursive>r --reflink=? --remove-destination --sparse= --strip-trailing-slashes --symbolic-link>s --suffix=>S --target-directory=>t --no-target-directory>T --update=? --verbose>v --one-file-system>x --context=?",
    alias: { R: "r" },
  },
  mv: { spec: "bfinTuvZ S: t: --backup=? --force>f --interactive>i --no-clobber>n --strip-trailing-slashes --suffix=>S --target-directory=>t --no-target-directory>T --update=? --verbose>v --exchange --no-copy --context>Z" },
  chmod: { spec: "cfvR --changes>c --silent>f --quiet>f --verbose>v --recursive>R --reference= --preserve-root --no-preserve-root" },
  chown: { spec: "cfhvRHLP --changes>c --silent>f --quiet>f --verbose>v --recursive>R --dereference --no-dereference>h --from= --reference= --preserve-root --no-preserve-root" },
  chgrp: { spec: "cfhvRHLP --changes>c --silent>f --quiet>f --verbose>v --recursive>R --dereference --no-dereference>h --reference= --preserve-root --no-preserve-root" },
  ln: { spec: "bdfFinLPrsTv S: t: --force>f --symbolic>s --interactive>i --logical>L --physical>P --relative>r --no-dereference>n --no-target-directory>T --target-directory=>t --suffix=>S --backup=? --verbose>v" },
  curl: { spec: CURL_SPEC, implied: curlImplied },
  "git push": {
    spec: `fnudq v 4 6 o: --force>f --force-with-lease=? --no-force-with-lease --force-if-includes --dry-run>n --delete>d --set-upstream>u --all --branches --mirror --tags --follow-tags --no-verify --verify --atomic --porcelain --prune --repo= --receive-pack= --exec= --push-option=>o --signed=? --no-signed --recurse-submodules= --no-recurse-submodules --thin --no-thin --ipv4>4 --ipv6>6 --progress --no-progress ${GIT_COMMON}`,
    implied: pushImplied,
  },
  "git branch": {
    spec: `dDfmMcCrailt u: --delete>d --force>f --move>m --copy>c --remotes>r --all>a --list>l --track=? --no-track --set-upstream-to=>u --unset-upstream --edit-description --contains=? --no-contains=? --merged=? --no-merged=? --points-at= --sort= --format= --color=? --no-color --column=? --no-column --ignore-case --omit-empty --show-current --create-reflog --abbrev=? --no-abbrev ${GIT_COMMON}`,
    implied: branchImplied,
  },
  "git checkout": { spec: `fmpt b: B: --force>f --track=? --no-track --detach --orphan= --merge>m --conflict= --patch>p --ours --theirs --ignore-skip-worktree-bits --ignore-other-worktrees --overwrite-ignore --no-overwrite-ignore --recurse-submodules --no-recurse-submodules --progress --no-progress --pathspec-from-file= --pathspec-file-nul --guess --no-guess ${GIT_COMMON}` },
  "git switch": { spec: `fmdt c: C: --force>f --discard-changes --create=>c --force-create=>C --detach>d --orphan= --track=? --no-track --merge>m --conflict= --guess --no-guess ${GIT_COMMON}` },
  "git restore": { spec: `pWSs: --source=>s --patch>p --worktree>W --staged>S --ours --theirs --merge --conflict= --ignore-unmerged --overlay --no-overlay --recurse-submodules --no-recurse-submodules --pathspec-from-file= ${GIT_COMMON}` },
  "git reset": { spec: `pN --soft --mixed --hard --merge --keep --patch>p --intent-to-add>N --recurse-submodules=? --no-recurse-submodules --pathspec-from-file= --no-refresh --refresh ${GIT_COMMON}` },
  "git clean": { spec: `dfinxX e: --force>f --dry-run>n --interactive>i --exclude=>e ${GIT_COMMON}` },
  "git rm": { spec: `fnr --force>f --dry-run>n --cached --ignore-unmatch --sparse --pathspec-from-file= ${GIT_COMMON}` },
  "git tag": { spec: `adfsln:: m: F: u: --annotate>a --delete>d --force>f --sign>s --list>l --message=>m --file=>F --local-user=>u --sort= --contains=? --merged=? --points-at= --format= ${GIT_COMMON}` },
  "git commit": { spec: `aenpsSvz m: F: C: c: t: u:: --all>a --message=>m --file=>F --reuse-message=>C --reedit-message=>c --template=>t --amend --no-verify>n --verify --signoff>s --gpg-sign=?>S --no-edit --edit>e --fixup= --squash= --allow-empty --allow-empty-message --author= --date= --dry-run --patch>p --only --include --untracked-files=?>u ${GIT_COMMON}` },
  "git rebase": { spec: `ifrmn x: s: X: --interactive>i --exec=>x --onto= --root --continue --abort --skip --quit --autosquash --no-autosquash --force-rebase>f --no-ff --rebase-merges=? --strategy=>s --strategy-option=>X --no-verify --verify --autostash --no-autostash --update-refs --keep-base ${GIT_COMMON}` },
  "git fetch": { spec: `afpPtnj: --all --append>a --force>f --prune>p --prune-tags>P --tags>t --dry-run>n --jobs=>j --depth= --unshallow --upload-pack= --recurse-submodules=? ${GIT_COMMON}` },
  "git pull": { spec: `fr --force>f --rebase=?>r --no-rebase --ff --no-ff --ff-only --squash --autostash ${GIT_COMMON}` },
  "git merge": { spec: `nse m: F: s: X: --no-ff --ff --ff-only --squash --no-commit --commit --abort --continue --message=>m --strategy=>s --strategy-option=>X --allow-unrelated-histories ${GIT_COMMON}` },
  "git stash": { spec: `kpuaq m: --keep-index>k --patch>p --include-untracked>u --all>a --message=>m ${GIT_COMMON}` },
  "git worktree": { spec: `f b: B: --force>f --detach --lock ${GIT_COMMON}` },
};

/** Programs that have a grammar (as the rule's first word). */
export function hasGrammar(program: string): boolean {
  return program === "git" || Object.hasOwn(GRAMMARS, program);
}

/** Any other program: letters of a short cluster are separate flags, long options keep their name. */
const GENERIC = grammar("");

/** The canonical form of a command's words (program name first, basename taken). */
export function canonOf(words: readonly string[]): Canon | undefined {
  if (!words.length) return undefined;
  const program = base(words[0]!);
  let head = [program];
  let rest = words.slice(1);
  if (program === "git") {
    const g = gitSplit(rest);
    if (!g.sub) return { head, opts: g.globals, operands: [], dashdash: -1 };
    head = ["git", g.sub];
    rest = g.rest;
  }
  const pg = Object.hasOwn(GRAMMARS, head.join(" ")) ? GRAMMARS[head.join(" ")] : undefined;
  const g: Grammar = pg ? (pg.g ??= grammar(pg.spec)) : GENERIC;
  const p = parseArgs(g, rest);
  const c: Canon = { head, opts: p.opts.map((o) => ({ ...o, k: pg?.alias?.[o.k] ?? o.k })), operands: p.operands, dashdash: p.dashdash };
  pg?.implied?.(c);
  return c;
}

/** A rule's form: canonical head and options, the operands as a glob. */
export interface RuleForm {
  head: string[];
  opts: Array<{ k: string; v?: RegExp }>;
  /** Operands before `--` (or all of them when the rule has no `--`). */
  pre?: RegExp;
  /** Operands after `--` (only when the rule has `--`). */
  post?: RegExp;
  dashdash: boolean;
}

/**
 * The rule's grammar form, for deny/ask matching, or undefined when plain text matching is all there
 * is (no options and no grammar program, or a `*` in the head).
 */
export function ruleForm(spec: string, glob: (s: string) => RegExp): RuleForm | undefined {
  const words = spec.split(" ").filter(Boolean);
  if (!words.length || words[0]!.includes("*")) return undefined;
  if (words[0] === "git" && (!words[1] || words[1].includes("*"))) return undefined;
  const c = canonOf(words);
  if (!c || c.head.some((h) => h.includes("*"))) return undefined;
  if (!c.opts.length && !hasGrammar(c.head[0]!) && c.dashdash < 0) return undefined;
  const opts = c.opts.map((o) => ({ k: o.k, v: o.v === undefined ? undefined : glob(o.v) }));
  const pre = c.dashdash < 0 ? c.operands : c.operands.slice(0, c.dashdash);
  const post = c.dashdash < 0 ? [] : c.operands.slice(c.dashdash);
  const re = (ws: string[]) => (ws.length === 1 && ws[0] === "*" ? undefined : glob(ws.join(" ")));
  return { head: c.head, opts, pre: c.dashdash >= 0 && !pre.length ? undefined : re(pre), post: c.dashdash >= 0 ? re(post) : undefined, dashdash: c.dashdash >= 0 };
}

/** Does a command's canonical form satisfy a rule form (same head, the rule's options among its own, operands matching)? */
export function formMatches(f: RuleForm, c: Canon | undefined): boolean {
  if (!c || c.head.length !== f.head.length) return false;
  for (let i = 0; i < f.head.length; i++) if (c.head[i] !== f.head[i]) return false;
  for (const o of f.opts) if (!c.opts.some((x) => x.k === o.k && (!o.v || (x.v !== undefined && o.v.test(x.v))))) return false;
  if (f.dashdash) {
    if (c.dashdash < 0) return false;
    if (f.pre && !f.pre.test(c.operands.slice(0, c.dashdash).join(" "))) return false;
    return !f.post || f.post.test(c.operands.slice(c.dashdash).join(" "));
  }
  return !f.pre || f.pre.test(c.operands.join(" "));
}

function base(cmd: string): string {
  const i = cmd.lastIndexOf("/");
  return i >= 0 ? cmd.slice(i + 1) : cmd;
}
