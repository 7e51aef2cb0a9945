/**
 * The read-only model: a command is read-only only when every word of it is understood — a known
 * program, each option on that program's allow-list of harmless options (with its value form), and
 * each operand in a known role (a path read, a pattern, plain data). An option not on the list, an
 * operand where none belongs, or a subcommand that runs or writes (`git grep -O`, `rg --pre`,
 * `sort -o`, `uniq IN OUT`, `date -s`, `hostname NAME`, `git submodule foreach` …) makes the
 * command not read-only. The model also names the words that are paths read, for Read rules.
 */
import { gitSplit } from "./programs.ts";
import { grammar, parseArgs, type Grammar, type Parsed } from "./options.ts";
import { sedArgs, sedUnsafe } from "./sed.ts";

export interface ReadOnlyVerdict {
  ok: boolean;
  /** Why not read-only. */
  why?: string;
  /** Paths read: index of the word in `words`, and the path when it is not the whole word (`--file=x`, `HEAD:x`). */
  reads: Array<{ i: number; path?: string }>;
}

type Role = "read" | "data" | "none" | "pattern";

interface Spec {
  opts: string;
  operands: Role;
  /** Options (canonical names) whose value is a file read. */
  readOpts?: string[];
  /** Options that supply the pattern (then every operand is a path). */
  patternOpts?: string[];
  max?: number;
  /** Extra conditions (the reason it is not read-only). */
  check?: (p: Parsed) => string | undefined;
  /** The compiled grammar (memoised). */
  g?: Grammar;
}

const SUMS = "bctwz --binary>b --check>c --tag --text>t --zero>z --ignore-missing --quiet --status --strict --warn>w";
const GREP =
  "EFGPiyvwxcLloqsbHhnTZzUarRI e: f: m: A: B: C: d: D: # --extended-regexp>E --fixed-strings>F --basic-regexp>G --perl-regexp>P --regexp=>e --file=>f " +
  "--ignore-case>i --no-ignore-case --word-regexp>w --line-regexp>x --null-data>z --no-messages>s --invert-match>v --max-count=>m --byte-offset>b " +
  "--line-number>n --no-line-number --line-buffered --with-filename>H --no-filename>h --label= --only-matching>o --quiet>q --silent>q --binary-files= " +
  "--text>a --directories=>d --devices=>D --recursive>r --dereference-recursive>R --include= --exclude= --exclude-from= --exclude-dir= " +
  "--files-without-match>L --files-with-matches>l --count>c --initial-tab>T --null>Z --before-context=>B --after-context=>A --context=>C " +
  "--color=? --colour=? --help --version";
const RG =
  "iSsFwxvcNlnbopqHhuUazLV0. e: f: g: m: A: B: C: t: T: M: j: E: d: r: " +
  "--ignore-case>i --smart-case>S --case-sensitive>s --fixed-strings>F --word-regexp>w --line-regexp>x --invert-match>v --count>c --count-matches " +
  "--files --files-with-matches>l --files-without-match --line-number>n --no-line-number>N --column --no-column --byte-offset>b --only-matching>o " +
  "--quiet>q --with-filename>H --no-filename --hidden>. --no-hidden --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-parent --no-ignore-global " +
  "--no-ignore-exclude --no-ignore-files --unrestricted>u --text>a --follow>L --glob=>g --iglob= --type=>t --type-not=>T --type-list --max-count=>m " +
  "--max-depth=>d --max-filesize= --max-columns=>M --max-columns-preview --after-context=>A --before-context=>B --context=>C --regexp=>e --file=>f " +
  "--replace=>r --color= --colors= --json --vimgrep --heading --no-heading --sort= --sortr= --threads=>j --multiline>U --multiline-dotall --pcre2>P " +
  "--engine= --trim --stats --null>0 --null-data --encoding=>E --search-zip>z --no-messages --passthru --context-separator= --field-match-separator= " +
  "--path-separator= --crlf --mmap --no-mmap --one-file-system --block-buffered --line-buffered --ignore-file= --ignore-file-case-insensitive " +
  "--pretty>p --debug --help --version>V --no-config --no-require-git --binary --no-binary --include-zero --dfa-size-limit= --regex-size-limit=";
const LS =
  "aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1 I: w: T: --all>a --almost-all>A --author --escape>b --block-size= --ignore-backups>B --color=? " +
  "--directory>d --dired>D --classify=? --file-type --format= --full-time --group-directories-first --no-group>G --human-readable>h --si " +
  "--dereference-command-line>H --dereference-command-line-symlink-to-dir --hide= --hyperlink=? --indicator-style= --inode>i --ignore=>I " +
  "--kibibytes>k --literal>N --numeric-uid-gid>n --hide-control-chars>q --show-control-chars --quote-name>Q --quoting-style= --reverse>r " +
  "--recursive>R --size>s --sort= --time= --time-style= --tabsize=>T --width=>w --context>Z --zero --dereference>L --help --version";
const DIFF =
  "qsyicbwBEZNaTtlruPdpHx: X: S: C: U: F: I: W: L: D: # --brief>q --report-identical-files>s --context=?>C --unified=?>U --side-by-side>y " +
  "--width=>W --left-column --suppress-common-lines --recursive>r --new-file>N --unidirectional-new-file>P --ignore-case>i --ignore-file-name-case " +
  "--no-ignore-file-name-case --ignore-tab-expansion>E --ignore-trailing-space>Z --ignore-space-change>b --ignore-all-space>w --ignore-blank-lines>B " +
  "--ignore-matching-lines=>I --text>a --strip-trailing-cr --color=? --normal --ed>e --rcs>n --label= --show-c-function>p --show-function-line=>F " +
  "--exclude=>x --exclude-from=>X --expand-tabs>t --initial-tab>T --minimal>d --speed-large-files --horizon-lines= --from-file= --to-file= " +
  "--no-dereference --starting-file=>S --palette= --suppress-blank-empty --line-format= --old-line-format= --new-line-format= --unchanged-line-format= " +
  "--old-group-format= --new-group-format= --changed-group-format= --unchanged-group-format= --tabsize= --help --version";

/** Date operands other than `+FORMAT` set the clock. */
const dateCheck = (p: Parsed) => (p.operands.some((o) => !o.startsWith("+")) ? "date with a time operand sets the clock" : undefined);
/** tree takes an option's value from the next word even inside a cluster (`-aLo 2 out` is `-a -L 2 -o out`). */
const treeCheck = (p: Parsed) => (p.opts.some((o) => o.v !== undefined && !o.raw.includes(" ")) ? "tree reads option values from the following words" : undefined);
/** `less +CMD` runs a less command (`+!cmd` a shell). */
const plusCheck = (p: Parsed) => (p.operands.some((o) => o.startsWith("+") && !/^\+\d+$/.test(o)) ? "a +command runs a pager command" : undefined);

/** Programs whose every argument is data (`echo -x` prints "-x"); printf's `-v` assigns a variable, so it is not here. */
const DATA_ANY = new Set(["echo", "true", "false", "test", "[", ":"]);

export const READ_ONLY_SPECS: Record<string, Spec> = {
  cat: { opts: "AbeEnstTuv --show-all>A --number-nonblank>b --show-ends>E --number>n --squeeze-blank>s --show-tabs>T --show-nonprinting>v --help --version", operands: "read" },
  tac: { opts: "br s: --before>b --regex>r --separator=>s --help --version", operands: "read" },
  rev: { opts: "0 --zero>0 --help --version", operands: "read" },
  nl: { opts: "p b: d: f: h: i: l: n: s: v: w: --body-numbering=>b --section-delimiter=>d --footer-numbering=>f --header-numbering=>h --line-increment=>i --join-blank-lines=>l --number-format=>n --no-renumber>p --number-separator=>s --starting-line-number=>v --number-width=>w", operands: "read" },
  head: { opts: "# qvz c: n: --bytes=>c --lines=>n --quiet>q --silent>q --verbose>v --zero-terminated>z --help --version", operands: "read" },
  tail: { opts: "# fFqvz c: n: s: --bytes=>c --lines=>n --follow=?>f --retry --pid= --quiet>q --silent>q --sleep-interval=>s --verbose>v --zero-terminated>z --max-unchanged-stats= --help --version", operands: "read" },
  wc: { opts: "clmwL --bytes>c --chars>m --lines>l --words>w --max-line-length>L --total= --help --version", operands: "read" },
  ls: { opts: LS, operands: "read" },
  echo: { opts: "neE", operands: "data" },
  printf: { opts: "", operands: "data" },
  pwd: { opts: "LP --logical>L --physical>P", operands: "none" },
  true: { opts: "", operands: "data" },
  false: { opts: "", operands: "data" },
  test: { opts: "", operands: "data" },
  "[": { opts: "", operands: "data" },
  grep: { opts: GREP, operands: "pattern", readOpts: ["f", "exclude-from"], patternOpts: ["e", "f"] },
  egrep: { opts: GREP, operands: "pattern", readOpts: ["f", "exclude-from"], patternOpts: ["e", "f"] },
  fgrep: { opts: GREP, operands: "pattern", readOpts: ["f", "exclude-from"], patternOpts: ["e", "f"] },
  rg: { opts: RG, operands: "pattern", readOpts: ["f", "ignore-file"], patternOpts: ["e", "f", "files", "type-list"] },
  which: { opts: "as --all>a", operands: "data" },
  type: { opts: "afptP", operands: "data" },
  diff: { opts: DIFF, operands: "read", readOpts: ["X", "from-file", "to-file"] },
  cmp: { opts: "bls i: n: --print-bytes>b --ignore-initial=>i --verbose>l --bytes=>n --silent>s --quiet>s --help --version", operands: "read" },
  comm: { opts: "123z --check-order --nocheck-order --output-delimiter= --total --zero-terminated>z --help --version", operands: "read" },
  stat: { opts: "LfctZ c: --dereference>L --file-system>f --format=>c --printf= --terse>t --cached= --help --version", operands: "read" },
  du: { opts: "0abcDhHklLmPSsxt: d: B: X: --null>0 --all>a --apparent-size --block-size=>B --bytes>b --total>c --dereference-args>D --max-depth=>d --human-readable>h --inodes --dereference>L --count-links>l --no-dereference>P --separate-dirs>S --si --summarize>s --threshold=>t --time=? --time-style= --exclude= --one-file-system>x --help --version", operands: "read", readOpts: ["X"] },
  df: { opts: "ahHiklPTv B: t: x: --all>a --block-size=>B --human-readable>h --si>H --inodes>i --local>l --no-sync --sync --output=? --portability>P --print-type>T --type=>t --exclude-type=>x --total --help --version", operands: "read" },
  file: { opts: "bcdEhiIkLlNnprsSvz0 e: F: m: P: --brief>b --mime>i --mime-type --mime-encoding --keep-going>k --dereference>L --no-dereference>h --raw>r --special-files>s --uncompress>z --uncompress-noreport>Z --separator=>F --magic-file=>m --exclude=>e --exclude-quiet= --extension --apple --print0>0 --no-pad>N --no-buffer>n --preserve-date>p --parameter=>P --help --version", operands: "read", readOpts: ["m"] },
  tree: { opts: "aAdfFgiJlnpqsuxhDCNQrtvUSX L: P: I: H: T: --du --si --prune --noreport --dirsfirst --filelimit= --charset= --timefmt= --sort= --matchdirs --ignore-case --gitignore --info --help --version", operands: "read", check: treeCheck },
  basename: { opts: "asz S: --multiple>a --suffix=>S --zero>z", operands: "data" },
  dirname: { opts: "z --zero>z", operands: "data" },
  realpath: { opts: "eLmPqsz --canonicalize-existing>e --logical>L --canonicalize-missing>m --physical>P --quiet>q --strip>s --no-symlinks>s --zero>z --relative-to= --relative-base=", operands: "read" },
  readlink: { opts: "efmnqsvz --canonicalize>f --canonicalize-existing>e --canonicalize-missing>m --no-newline>n --quiet>q --silent>s --verbose>v --zero>z", operands: "read" },
  date: { opts: "RuI:: d: f: r: --date=>d --file=>f --iso-8601=?>I --rfc-3339= --rfc-email>R --reference=>r --utc>u --universal>u --debug --resolution --help --version", operands: "data", readOpts: ["f", "r"], check: dateCheck },
  whoami: { opts: "", operands: "none" },
  id: { opts: "agGnruzZ --group>g --groups>G --name>n --real>r --user>u --zero>z --context>Z", operands: "data" },
  // Process and system state: they print, read no file content and run nothing (Claude Code allows them unasked).
  ps: { opts: "AaedfFHjlLMNrTuvwxXyZcm e: p: u: U: g: G: o: O: t: C: q: s: k: --pid= --ppid= --user= --User= --group= --Group= --sid= --tty= --forest --sort= --format= --no-headers --headers --cols= --columns= --width= --lines= --rows= --cumulative --deselect --help --version", operands: "data" },
  lsof: { opts: "nPtlbwhRUVXKoOsSTMlaNQ i:: c: p: u: g: d: s:: T:: k: r:: +D: +d: -L --help", operands: "read" },
  free: { opts: "bkmghltwvL s: c: --bytes>b --kibi>k --mebi>m --gibi>g --tebi --pebi --kilo --mega --giga --tera --peta --human>h --si --lohi>l --line>L --total>t --wide>w --committed>v --seconds=>s --count=>c --help --version", operands: "none" },
  uptime: { opts: "psh --pretty>p --since>s --container>c --raw>r --help>h --version>V", operands: "none" },
  sleep: { opts: "--help --version", operands: "data", max: 1 },
  // Only the version or help of a runtime: any other word (a script, -e, -p …) makes it not read-only.
  node: { opts: "vh --version>v --help>h", operands: "none" },
  uname: { opts: "asnrvmpio --all>a --kernel-name>s --nodename>n --kernel-release>r --kernel-version>v --machine>m --processor>p --hardware-platform>i --operating-system>o", operands: "none" },
  hostname: { opts: "aAdfiIsyv --alias>a --all-fqdns>A --domain>d --fqdn>f --long>f --ip-address>i --all-ip-addresses>I --short>s --yp>y --nis>y --verbose>v", operands: "none" },
  seq: { opts: "w s: f: --separator=>s --format=>f --equal-width>w", operands: "data" },
  jq: { opts: "nrjacCSsReg L: f: --null-input>n --raw-output>r --join-output>j --ascii-output>a --compact-output>c --color-output>C --monochrome-output --sort-keys>S --slurp>s --raw-input>R --exit-status>e --tab --indent= --seq --stream --arg= --argjson= --args --jsonargs --from-file=>f --raw-output0", operands: "pattern", readOpts: ["f"], patternOpts: ["f"] },
  cut: { opts: "nsz b: c: d: f: --bytes=>b --characters=>c --delimiter=>d --fields=>f --complement --only-delimited>s --output-delimiter= --zero-terminated>z", operands: "read" },
  tr: { opts: "cCdst --complement>c --delete>d --squeeze-repeats>s --truncate-set1>t", operands: "data" },
  column: { opts: "tnJxeLRr s: c: o: N: W: H: O: E: d: l: --table>t --separator=>s --output-separator=>o --output-width=>c --table-columns=>N --json>J --fillrows>x", operands: "read" },
  md5sum: { opts: SUMS, operands: "read" },
  sha1sum: { opts: SUMS, operands: "read" },
  sha256sum: { opts: SUMS, operands: "read" },
  sha512sum: { opts: SUMS, operands: "read" },
  cksum: { opts: "z a: l: --algorithm=>a --length=>l --base64 --raw --untagged --tag --check --zero>z", operands: "read" },
  strings: { opts: "# afwdD n: t: e: T: --all>a --data>d --print-file-name>f --bytes=>n --radix=>t --encoding=>e --target=>T --include-all-whitespace>w", operands: "read" },
  od: { opts: "bcdfilosxv A: j: N: S:: t: w:: --address-radix=>A --skip-bytes=>j --read-bytes=>N --strings=?>S --format=>t --output-duplicates>v --width=?>w --traditional --endian=", operands: "read" },
  hexdump: { opts: "bcCdovx e: f: n: s: L:: --one-byte-octal>b --one-byte-char>c --canonical>C --two-bytes-decimal>d --two-bytes-octal>o --two-bytes-hex>x --format=>e --format-file=>f --length=>n --skip=>s --no-squeezing>v", operands: "read", readOpts: ["f"] },
  xxd: { opts: "abCEeipruhd c: g: l: o: s: n: R: --autoskip>a --bits>b --capitalize>C --ebcdic>E --include>i --postscript>p --plain>p --revert>r --uppercase>u", operands: "read", max: 1 },
  less: { opts: "# aBcCdeEfFgGiIJKLmMnNqQrRsSuUVwWXz~ b: h: j: p: P: t: T: x: y: z: --quit-if-one-screen>F --no-init>X --RAW-CONTROL-CHARS>R --raw-control-chars>r --chop-long-lines>S --ignore-case>i --IGNORE-CASE>I --LINE-NUMBERS>N --line-numbers>n --squeeze-blank-lines>s --quiet>q --silent>q --tabs=>x --pattern=>p --prompt=>P --quit-at-eof>e --QUIT-AT-EOF>E --no-lessopen --mouse --use-color --help --version", operands: "read", check: plusCheck },
  more: { opts: "# dflcpsu n: --silent>d --logical>l --no-pause>f --print-over>p --clean-print>c --squeeze>s --plain>u --lines=>n --help --version", operands: "read", check: plusCheck },
  printenv: { opts: "0 --null>0", operands: "data" },
  find: { opts: "HLP O: D:", operands: "read" },
  sort: { opts: "bcCdfghiMmnRrsuVz k: t: S: T: --ignore-leading-blanks>b --dictionary-order>d --ignore-case>f --general-numeric-sort>g --ignore-nonprinting>i --month-sort>M --human-numeric-sort>h --numeric-sort>n --random-sort>R --random-source= --reverse>r --sort= --version-sort>V --batch-size= --check=?>c --debug --key=>k --merge>m --stable>s --buffer-size=>S --field-separator=>t --temporary-directory=>T --parallel= --unique>u --zero-terminated>z --help --version", operands: "read", readOpts: ["random-source"] },
  uniq: { opts: "cdDiuz f: s: w: --count>c --repeated>d --all-repeated=?>D --skip-fields=>f --ignore-case>i --skip-chars=>s --unique>u --zero-terminated>z --check-chars=>w --group=? --help --version", operands: "read", max: 1 },
  base64: { opts: "diw: --decode>d --ignore-garbage>i --wrap=>w", operands: "read", max: 1 },
  paste: { opts: "sz d: --serial>s --delimiters=>d --zero-terminated>z", operands: "read" },
  fold: { opts: "bs w: --bytes>b --spaces>s --width=>w", operands: "read" },
  fmt: { opts: "# cstu w: g: p: --crown-margin>c --split-only>s --tagged-paragraph>t --uniform-spacing>u --width=>w --goal=>g --prefix=>p", operands: "read" },
  expand: { opts: "i t: --initial>i --tabs=>t", operands: "read" },
  cd: { opts: "LPe@", operands: "read", max: 1 },
  // Batch mode only: interactive top reads keys that kill (`k`) and renice (`r`) processes, or write its config (`W`).
  top: { opts: "bcHiSs1 d: n: p: u: U: o: O: w:: E: e: --help>h h v", operands: "none", check: topCheck },
  // Only xargs's own version or help: with anything else it runs a command built from its input (segments.ts).
  xargs: { opts: "--version --help", operands: "none" },
};

/** npm: listing the installed tree (`npm ls`, `list`, `ll`, `la`) or printing the version; nothing else (install scripts, exec, run …). */
const NPM_LS = grammar(
  "aglp w: --all>a --json --long>l --parseable>p --global>g --depth= --omit= --include= --link --package-lock-only --unicode --no-unicode " +
    "--workspace=>w --workspaces --no-workspaces --include-workspace-root --install-links --production --prod --dev --only= --color= --no-color " +
    "--loglevel= --silent --quiet --offline --no-fund --no-audit --no-progress",
);
function npmVerdict(words: readonly string[]): ReadOnlyVerdict {
  const no = (why: string): ReadOnlyVerdict => ({ ok: false, why, reads: [] });
  const [, sub, ...rest] = words;
  if (words.length === 2 && (sub === "-v" || sub === "--version")) return { ok: true, reads: [] };
  if (!sub || !/^(?:ls|list|ll|la)$/.test(sub)) return no(`npm ${sub ?? ""} is not a read-only npm command`.trim());
  const p = parseArgs(NPM_LS, rest, false);
  if (p.unknown.length) return no(`npm ${sub} ${p.unknown[0]} is not a known read-only option`);
  return { ok: true, reads: [] };
}

function topCheck(p: Parsed): string | undefined {
  if (p.opts.some((o) => o.k === "h" || o.k === "v")) return undefined;
  return p.opts.some((o) => o.k === "b") ? undefined : "top without -b is interactive (its keys kill and renice processes)";
}

/** find primaries that only test or print (no -exec, -delete, -fprint …). */
const FIND_SAFE = new Set(
  "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -perm -user -group -uid -gid -nouser -nogroup -links -inum -samefile -empty -executable -readable -writable -maxdepth -mindepth -depth -mount -xdev -follow -noleaf -regextype -daystart -ignore_readdir_race -noignore_readdir_race -print -print0 -printf -ls -prune -quit -true -false -not -a -and -o -or -lname -ilname -fstype -used -newermt -newerct -newerat -newermm -newerBt -nowarn -warn".split(" "),
);
const FIND_VALUED = new Set("-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -perm -user -group -uid -gid -links -inum -samefile -maxdepth -mindepth -regextype -printf -lname -ilname -fstype -used -newermt -newerct -newerat -newermm -newerBt".split(" "));

function findVerdict(words: readonly string[]): ReadOnlyVerdict {
  const reads: ReadOnlyVerdict["reads"] = [];
  let k = 1;
  while (k < words.length && /^-[HLP]$|^-O\d$|^-D$/.test(words[k]!)) k += words[k] === "-D" ? 2 : 1;
  for (; k < words.length && !words[k]!.startsWith("-") && !/^[!(),]$/.test(words[k]!); k++) reads.push({ i: k });
  for (; k < words.length; k++) {
    const w = words[k]!;
    if (/^[!(),]$|^\\[()]$/.test(w)) continue;
    if (!FIND_SAFE.has(w)) return { ok: false, why: `find ${w} is not a read-only primary`, reads };
    if (FIND_VALUED.has(w)) k++;
    if (w === "-newer" || w === "-samefile" || w === "-anewer" || w === "-cnewer") reads.push({ i: k });
  }
  return { ok: true, reads };
}

/** sed prints its input transformed: read-only when it edits nothing in place and its script only transforms (grammars/sed.ts). */
function sedVerdict(words: readonly string[]): ReadOnlyVerdict {
  const s = sedArgs(words);
  const reads = [...s.files.map((i) => ({ i })), ...s.scriptFiles.map((f) => ({ i: f.i, path: f.path }))];
  if (s.inPlace) return { ok: false, why: "sed -i rewrites its files", reads };
  const why = sedUnsafe(s);
  return why ? { ok: false, why, reads } : { ok: true, reads };
}

function verdictFor(spec: Spec, name: string, words: readonly string[]): ReadOnlyVerdict {
  const args = words.slice(1);
  const p = parseArgs((spec.g ??= grammar(spec.opts)), args, false);
  const reads: ReadOnlyVerdict["reads"] = [];
  for (const o of p.opts) if (spec.readOpts?.includes(o.k) && o.vi !== undefined && o.v !== undefined) reads.push({ i: o.vi + 1, path: o.v });
  if (p.unknown.length) return { ok: false, why: `${name} ${p.unknown[0]} is not a known read-only option`, reads };
  let idx = p.operandIdx;
  if (spec.operands === "pattern" && !p.opts.some((o) => spec.patternOpts?.includes(o.k))) idx = idx.slice(1);
  if (spec.operands === "read" || spec.operands === "pattern") reads.push(...idx.map((i) => ({ i: i + 1 })));
  if (spec.operands === "none" && p.operands.length) return { ok: false, why: `${name} ${p.operands[0]} is not read-only (an operand changes something)`, reads };
  if (spec.max !== undefined && idx.length > spec.max) return { ok: false, why: `${name} writes its operand ${args[idx[spec.max]!]}`, reads };
  const why = spec.check?.(p);
  return why ? { ok: false, why, reads } : { ok: true, reads };
}

/** The model's verdict on one command (program name and its words, after wrappers), or undefined for a program it does not know. */
export function readOnlyVerdict(name: string, words: readonly string[]): ReadOnlyVerdict | undefined {
  if (name === "git") return gitVerdict(words);
  if (name === "find") return findVerdict(words);
  if (name === "sed") return sedVerdict(words);
  if (name === "npm") return npmVerdict(words);
  if (DATA_ANY.has(name)) return { ok: true, reads: [] };
  if (name === "env") return words.length === 1 ? { ok: true, reads: [] } : { ok: false, why: "env with arguments runs or changes something", reads: [] };
  const spec = Object.hasOwn(READ_ONLY_SPECS, name) ? READ_ONLY_SPECS[name] : undefined;
  return spec ? verdictFor(spec, name, words) : undefined;
}

// --- git -----------------------------------------------------------------------------------------

/** Log/diff formatting options: every family git documents for history and diff output. */
const GIT_VIEW_LONG = new RegExp(
  "^--(?:" +
    [
      "oneline", "graph", "decorate(?:=.*)?", "no-decorate", "decorate-refs(?:-exclude)?=.*", "stat(?:=.*)?", "shortstat", "numstat", "name-only", "name-status",
      "pretty(?:=.*)?", "format=.*", "abbrev-commit", "no-abbrev-commit", "abbrev(?:=.*)?", "no-abbrev", "date=.*", "relative-date", "all", "branches(?:=.*)?",
      "tags(?:=.*)?", "remotes(?:=.*)?", "glob=.*", "exclude=.*", "author=.*", "committer=.*", "grep=.*", "grep-reflog=.*", "since=.*", "until=.*", "after=.*",
      "before=.*", "max-count=.*", "skip=.*", "min-parents=.*", "max-parents=.*", "no-min-parents", "no-max-parents", "reverse", "first-parent", "merges",
      "no-merges", "follow", "patch", "no-patch", "raw", "color(?:=.*)?", "no-color", "color-moved(?:=.*)?", "color-moved-ws=.*", "no-color-moved",
      "word-diff(?:=.*)?", "word-diff-regex=.*", "color-words(?:=.*)?", "cached", "staged", "merge-base", "ignore-space-change", "ignore-all-space",
      "ignore-blank-lines", "ignore-space-at-eol", "ignore-cr-at-eol", "ignore-matching-lines=.*", "unified=.*", "minimal", "patience", "histogram",
      "anchored=.*", "diff-algorithm=.*", "find-renames(?:=.*)?", "find-copies(?:=.*)?", "find-copies-harder", "no-renames", "rename-empty", "no-rename-empty",
      "diff-filter=.*", "summary", "check", "full-index", "binary", "dirstat(?:=.*)?", "cumulative", "compact-summary", "left-right", "cherry-pick", "cherry-mark",
      "cherry", "boundary", "topo-order", "date-order", "author-date-order", "simplify-by-decoration", "simplify-merges", "full-history", "dense", "sparse",
      "ancestry-path(?:=.*)?", "show-signature", "notes(?:=.*)?", "no-notes", "show-notes(?:=.*)?", "encoding=.*", "expand-tabs(?:=.*)?", "no-expand-tabs",
      "parents", "children", "walk-reflogs", "source", "use-mailmap", "mailmap", "no-mailmap", "no-use-mailmap", "log-size", "invert-grep", "all-match",
      "regexp-ignore-case", "basic-regexp", "extended-regexp", "fixed-strings", "perl-regexp", "quiet", "exit-code", "relative(?:=.*)?", "no-relative", "text",
      "no-ext-diff", "no-textconv", "submodule(?:=.*)?", "src-prefix=.*", "dst-prefix=.*", "no-prefix", "default-prefix", "line-prefix=.*",
      "ita-invisible-in-index", "ita-visible-in-index", "ignore-submodules(?:=.*)?", "remerge-diff", "diff-merges=.*", "no-diff-merges", "combined-all-paths",
      "cc", "dd", "no-walk(?:=.*)?", "do-walk", "show-linear-break(?:=.*)?", "single-worktree", "since-as-filter=.*", "stat-width=.*", "stat-name-width=.*",
      "stat-graph-width=.*", "stat-count=.*", "shortstat", "irreversible-delete", "break-rewrites(?:=.*)?", "inter-hunk-context=.*", "function-context",
      "show-pulls", "in-commit-order", "count", "pickaxe-all", "pickaxe-regex", "no-standard-notes", "standard-notes", "show-origin", "porcelain",
      "line-porcelain", "incremental", "root", "show-stats", "show-name", "show-number", "score-debug", "reverse", "progress", "no-progress",
      "ignore-rev=.*", "ignore-revs-file=.*", "summary", "numbered", "committer", "email", "group=.*", "no-index", "output-indicator-(?:new|old|context)=.*",
    ].join("|") +
    ")$",
);
/** Short clusters of log/diff/blame flags, with their valued forms (`-n5`, `-S str`, `-L 1,5:f`, `-U3`, `-10`). */
const GIT_VIEW_SHORT = /^-(?:\d+|[pusztwWmcrRaibBMCDlcfhenseEFPq]+|[nSGULM]\S*|[lB]\d*)$/;
const GIT_VIEW_VALUED = /^-[nSGLU]$|^--(?:max-count|skip|author|committer|grep|since|until|after|before|format|pretty|date|diff-filter|encoding)$/;

const GIT_STATUS = /^(?:-[sbvuzZ]+|-u\w*|--(?:short|branch|show-stash|porcelain(?:=.*)?|long|verbose|untracked-files(?:=.*)?|ignored(?:=.*)?|ignore-submodules(?:=.*)?|column(?:=.*)?|no-column|ahead-behind|no-ahead-behind|renames|no-renames|find-renames(?:=.*)?|null))$/;
const GIT_LS_FILES = /^(?:-[cdmoiskuftvzeZ]+|--(?:cached|deleted|modified|others|ignored|stage|killed|unmerged|resolve-undo|directory|no-empty-directory|eol|full-name|recurse-submodules|abbrev(?:=.*)?|debug|deduplicate|error-unmatch|exclude(?:-standard|-per-directory=.*|=.*)|format=.*|sparse|with-tree=.*|x=.*|z))$/;
const GIT_LS_TREE = /^(?:-[rdtlz]+|--(?:full-name|full-tree|name-only|name-status|object-only|long|abbrev(?:=.*)?|format=.*))$/;
const GIT_GREP = /^(?:-[iIvwaEGFPhHlLcnoqzW]+|-[ABCm]\d*|-\d+|-e|-f|--(?:cached|untracked|no-index|no-exclude-standard|exclude-standard|recurse-submodules|text|ignore-case|word-regexp|invert-match|full-name|extended-regexp|basic-regexp|fixed-strings|perl-regexp|line-number|column|files-with-matches|name-only|files-without-match|null|only-matching|count|color(?:=.*)?|no-color|break|heading|show-function|function-context|max-depth=.*|max-count=.*|threads=.*|and|or|not|all-match|quiet|context=.*|before-context=.*|after-context=.*|no-textconv|recursive|no-recursive))$/;
const GIT_MISC_SAFE: Record<string, RegExp> = {
  "rev-parse": /^-/,
  describe: /^(?:--(?:all|tags|contains|abbrev=.*|candidates=.*|exact-match|debug|long|match=.*|exclude=.*|always|first-parent|dirty(?:=.*)?|broken(?:=.*)?))$/,
  "merge-base": /^(?:-a|--(?:all|octopus|independent|is-ancestor|fork-point))$/,
  "show-ref": /^(?:-[dsq]+|--(?:head|dereference|hash(?:=.*)?|abbrev(?:=.*)?|quiet|verify|exists|branches|tags|heads))$/,
  "count-objects": /^(?:-[vH]+|--(?:verbose|human-readable))$/,
  version: /^--build-options$/,
  "cat-file": /^(?:-[tsepP]|--(?:allow-unknown-type|mailmap|use-mailmap|no-use-mailmap))$/,
};
const GIT_BRANCH_LIST = /^(?:-[arvl]+|-vv|--(?:list|show-current|all|remotes|verbose|contains(?:=.*)?|no-contains(?:=.*)?|merged(?:=.*)?|no-merged(?:=.*)?|points-at=.*|sort=.*|format=.*|color(?:=.*)?|no-color|column(?:=.*)?|no-column|abbrev(?:=.*)?|no-abbrev|ignore-case|omit-empty))$/;
const GIT_SAFE_CONFIG = /^(?:color\.[^=]*|core\.quotepath|log\.[a-z]*|diff\.(?:renames|algorithm|context|mnemonicprefix|noprefix|relative|statgraphwidth|submodule)|status\.[a-z]*|advice\.[a-z]*|i18n\.[a-z]*|format\.pretty)=/i;

/** git: globals that change nothing, then a subcommand in its read-only forms. */
function gitVerdict(words: readonly string[]): ReadOnlyVerdict {
  const g = gitSplit(words.slice(1));
  const no = (why: string): ReadOnlyVerdict => ({ ok: false, why, reads: [] });
  for (const o of g.globals) {
    if (o.k === "c" && o.v !== undefined && GIT_SAFE_CONFIG.test(o.v)) continue;
    if (!["P", "p", "no-optional-locks", "literal-pathspecs", "glob-pathspecs", "noglob-pathspecs", "icase-pathspecs", "no-replace-objects", "no-advice", "v", "h"].includes(o.k)) {
      return no(`git ${o.raw} changes what git runs or where`);
    }
  }
  if (!g.sub) return { ok: true, reads: [] };
  const off = words.length - g.rest.length; // index in `words` of the first word after the subcommand
  const rest = g.rest;
  const v = gitSubVerdict(g.sub, rest);
  if (!v.ok) return v;
  return { ok: true, reads: v.reads.map((r) => ({ ...r, i: r.i + off })) };
}

const VIEW = new Set(["log", "show", "diff", "whatchanged", "shortlog", "blame", "annotate"]);

function gitSubVerdict(sub: string, rest: readonly string[]): ReadOnlyVerdict {
  const no = (why: string): ReadOnlyVerdict => ({ ok: false, why, reads: [] });
  const onlyOpts = (re: RegExp, allowOperands = true): ReadOnlyVerdict => {
    const bad = rest.find((r) => r.startsWith("-") && r !== "--" && !re.test(r));
    if (bad) return no(`git ${sub} ${bad} is not a known read-only option`);
    if (!allowOperands && rest.some((r) => !r.startsWith("-"))) return no(`git ${sub} with an operand changes something`);
    return { ok: true, reads: [] };
  };
  if (VIEW.has(sub)) return gitView(sub, rest);
  switch (sub) {
    case "status":
      return onlyOpts(GIT_STATUS);
    case "ls-files":
      return onlyOpts(GIT_LS_FILES);
    case "ls-tree":
      return onlyOpts(GIT_LS_TREE);
    case "grep":
      return gitGrep(rest);
    case "branch":
      if (rest.some((r) => /^--?(?:l|list|contains|merged|no-merged|no-contains|points-at)/.test(r)) || !rest.some((r) => !r.startsWith("-"))) return onlyOpts(GIT_BRANCH_LIST);
      return no("git branch NAME creates a branch");
    case "tag":
      if (rest.length && !rest.some((r) => /^(?:-l|--list|-n\d*)$/.test(r))) return no("git tag with arguments creates or deletes a tag");
      return onlyOpts(/^(?:-l|--list|-n\d*|--sort=.*|--contains(?:=.*)?|--merged(?:=.*)?|--no-merged(?:=.*)?|--points-at=.*|--format=.*|--column(?:=.*)?|--no-column|-i|--ignore-case)$/);
    case "remote":
      if (rest.some((r) => /^(?:add|remove|rm|rename|set-url|prune|set-head|set-branches|update)$/.test(r))) return no(`git remote ${rest.find((r) => !r.startsWith("-"))} changes the remotes`);
      return onlyOpts(/^(?:-v|--verbose|-n)$/);
    case "stash":
      return rest[0] === "list" || rest[0] === "show" ? gitView("log", rest.slice(1)) : no("git stash changes the working tree");
    case "config":
      if (!rest.some((r) => /^(?:--get|--get-all|--list|-l|--get-regexp|--get-urlmatch)$/.test(r))) return no("git config without --get/--list may write");
      return onlyOpts(/^(?:--get|--get-all|--list|-l|--get-regexp|--get-urlmatch|--show-origin|--show-scope|--global|--local|--system|--worktree|--name-only|-z|--null|--type=.*|--bool|--int|--path|--default=.*|--includes|--no-includes)$/);
    case "reflog":
      if (rest[0] && !rest[0].startsWith("-") && rest[0] !== "show" && rest[0] !== "list") return no(`git reflog ${rest[0]} changes the reflog`);
      return gitView("log", rest[0] === "show" || rest[0] === "list" ? rest.slice(1) : rest);
    case "help":
      return onlyOpts(/^(?:-a|--all|-g|--guides|--config|--no-external-commands|--no-aliases)$/);
  }
  const misc = Object.hasOwn(GIT_MISC_SAFE, sub) ? GIT_MISC_SAFE[sub] : undefined;
  if (misc) return onlyOpts(misc);
  return no(`git ${sub} is not a read-only git command`);
}

/** log/show/diff/blame: formatting options only; revisions are data, paths (and `REV:path`) are reads. */
function gitView(sub: string, rest: readonly string[]): ReadOnlyVerdict {
  const reads: ReadOnlyVerdict["reads"] = [];
  let paths = false;
  for (let i = 0; i < rest.length; i++) {
    const r = rest[i]!;
    if (!paths && r === "--") {
      paths = true;
      continue;
    }
    if (!paths && r.startsWith("-") && r !== "-") {
      if (!GIT_VIEW_LONG.test(r) && !GIT_VIEW_SHORT.test(r)) return { ok: false, why: `git ${sub} ${r} is not a known read-only option`, reads };
      if (GIT_VIEW_VALUED.test(r)) i++;
      continue;
    }
    // An operand is a revision or a path: check it as a path read either way (`REV:path` reads path).
    const colon = /^[^:/]*:(.+)$/.exec(r);
    reads.push(colon && !paths ? { i, path: colon[1]!.replace(/^\.\//, "") } : { i });
  }
  return { ok: true, reads };
}

function gitGrep(rest: readonly string[]): ReadOnlyVerdict {
  for (let i = 0; i < rest.length; i++) {
    const r = rest[i]!;
    if (r === "--") break;
    if (r.startsWith("-") && !GIT_GREP.test(r)) return { ok: false, why: `git grep ${r} is not a known read-only option (-O/--open-files-in-pager runs a program)`, reads: [] };
    if (r === "-e" || r === "-f" || /^-[ABCm]$/.test(r)) i++;
  }
  return { ok: true, reads: [] };
}
