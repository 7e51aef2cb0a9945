/**
 * The shell parser's fast path (lib/rules/shell-quick.ts parseQuick: simple commands joined by `&& || ; |` and
 * newlines, quotes, escapes, `$NAME`/`${NAME}`/`$(…)`, assignments, simple redirections) must give exactly what the
 * full mvdan-sh parse gives on every input it accepts, and decline the rest: fast-check over command lines built from
 * plain words, quoted and expanded words, reserved words, assignments, redirections, separators and stray
 * metacharacters, and over every command of the permission corpora. PROP_RUNS=20000 for a longer hunt.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseFull, parseQuick } from "../../lib/rules/shell.ts";

const NUM_RUNS = Number(process.env.PROP_RUNS ?? 3000);
/** Plain words, some of them `NAME=value` (an assignment only before the command name) or echo/printf (a literal piped on). */
const common = fc.constantFrom("ls", "git", "status", "rm", "-rf", "build", "echo", "printf", "cat", "sh", "a=b", "x=1", "1a=b", "_=x", "k=v=w", "a+=b", "--", "-", "%1", "a,b", "@x", "+x", "/bin/rm", ".", "..", "src/a.ts", "-n5", "--x=y");
/** Reserved words, declarations and `time`, and words with metacharacters: the fast path must decline most of them. */
const trouble = fc.constantFrom(
  "time", "export", "local", "declare", "readonly", "typeset", "let", "if", "then", "fi", "do", "done", "in", "for", "case", "esac", "function", "coproc",
  "select", "while", "!", "{", "}", "[[", "]]", "~", "#", "a#b", "$x", "'q'", "\"q\"", "a\\b", "*", "?", "[a]", "(", ")", "<", ">", "2>", "x&",
  "$'x'", "$1", "$?", "$@", "${x:-y}", "${#x}", "$((1+2))", "`ls`", "<<<x", "<<EOF", "<(ls)", ">(ls)", "|&", "&", "a[0]=x", "a=(x)", "$\"x\"", "\\\n", "\"$\"", "'", "\"",
);
/** Quoted, escaped and expanded pieces the fast path must take exactly as the parser does. */
const piece = fc.constantFrom(
  "'a b'", "''", "\"\"", "\"x y\"", "\"a\\\"b\"", "\"\\\\\"", "\"\\$x\"", "\"a\\nb\"", "\"a\\\nb\"", "\"$x\"", "\"${x}\"", "\"a$x/b\"", "\"$x$y\"", "$x", "${x}", "$x_1", "$_",
  "$(ls)", "$(echo rm)", "\"$(ls -la)\"", "$(< f)", "$(cat \"a b\")", "$(a | b)", "$(a && b; c)", "$()", "$( ls )", "\"$(pwd)/x\"",
  "\\$x", "a\\ b", "\\'", "\\\"", "~", "~/x", "~+", "x~", "{a,b}", "{1..3}", ".{e,}nv", "*.ts", "a?", "[ab]", "é", "\"é ü\"", "'—'", "a=b", "=x", "x=", "!x", "a#b",
);
const plain = fc.array(fc.constantFrom(..."abz019_./:@%+,=-"), { minLength: 1, maxLength: 6 }).map((cs) => cs.join(""));
const glued = fc.array(fc.oneof(piece, plain), { minLength: 1, maxLength: 3 }).map((ps) => ps.join(""));
const redirect = fc
  .tuple(fc.constantFrom(">", ">>", "<", "2>", "2>>", "1>", "12>", "0<", "&>", "&>>", ">|", ">&", "2>&", "<>", "<&", "<<", "<<<"), fc.constantFrom("", " ", "  "), fc.oneof(plain, piece, fc.constantFrom("1", "2", "-", "/dev/null")))
  .map(([op, sp, w]) => op + sp + w);
const word = fc.oneof({ weight: 4, arbitrary: common }, { weight: 2, arbitrary: trouble }, { weight: 3, arbitrary: plain }, { weight: 3, arbitrary: glued }, { weight: 1, arbitrary: redirect });
const sep = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(" ", " ", " ", "  ", "\t", " && ", "&&", " || ", "||", "; ", ";", " ; ", " | ", "|", "\n", " \\\n ") },
  { weight: 1, arbitrary: fc.constantFrom(" & ", "&", " |& ", ";;", " &&& ", " ;; ", "&&\n", "|\n", "\n\n", ";\n", "\n;", "\n&&", " \\\n") },
);
const line = fc
  .tuple(fc.constantFrom("", " ", "\t", ";", "\n"), fc.array(fc.tuple(word, sep), { minLength: 0, maxLength: 6 }), word, fc.constantFrom("", " ", ";", " ;", "&&", "|", "\t", "\n"))
  .map(([lead, pairs, last, tail]) => lead + pairs.map(([w, s]) => w + s).join("") + last + tail);
const noise = fc.array(fc.constantFrom(..."ab1-=/.;|& \t$'\"#~{}*()<>\\\n2".split("")), { maxLength: 30 }).map((cs) => cs.join(""));

function same(src: string): boolean {
  const fast = parseQuick(src);
  if (!fast) return false;
  expect(fast, JSON.stringify(src)).toEqual(parseFull(src));
  // toEqual ignores undefined-valued keys; the analysis is shared by reference, so compare the exact shape too
  expect(JSON.stringify(fast), JSON.stringify(src)).toBe(JSON.stringify(parseFull(src)));
  return true;
}

describe("shell fast path ≡ the full parser", () => {
  it("accepts only what the full parser parses, with the same commands, words, parts and redirections", () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: line }, { weight: 1, arbitrary: noise }), (src) => {
        if (same(src)) accepted++;
      }),
      { numRuns: NUM_RUNS },
    );
    // The property is only worth something if the fast path takes a good share of the inputs.
    expect(accepted).toBeGreaterThan(NUM_RUNS / 10);
  });

  it("agrees with the full parser on every command of the permission corpora", () => {
    const dir = path.join(import.meta.dirname, "cases");
    const commands = new Set<string>();
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".jsonl"))) {
      for (const l of fs.readFileSync(path.join(dir, f), "utf8").split("\n")) {
        if (!l.trim()) continue;
        const c = JSON.parse(l) as { input?: { command?: unknown; cmd?: unknown; chars?: unknown } };
        for (const v of [c.input?.command, c.input?.cmd, c.input?.chars]) if (typeof v === "string") commands.add(v);
      }
    }
    let accepted = 0;
    for (const c of commands) if (same(c)) accepted++;
    expect(commands.size).toBeGreaterThan(300);
    expect(accepted).toBeGreaterThan(commands.size / 3);
  });

  it("takes the everyday commands and declines what needs the parser", () => {
    for (const s of [
      "git status", "npm test && npm run build", "ls -la src | wc -l", "make; make install", "git log --oneline -5 || true", "cat a.txt|sort", "ls;",
      "cat 'a'", "ls $HOME", "ls ~", "ls *.ts", "A=1 ls", "ls > f", "npm test 2>&1 | tail -5", "git commit -m \"fix: the thing\"", "ls\nrm x",
      "grep -n \"$PWD\" src", "echo \"$(< src/a.ts)\" | sort -u", "cat {src/a.ts,README.md}", "docker run \\\n  -v x:y img",
    ]) {
      expect(parseQuick(s), s).toEqual(parseFull(s));
    }
    for (const s of ["echo hi | sh", "time ls", "export A=1", "ls &", "ls && ", "; ls", "if true", "ls # c", "{ ls; }", "printf x|bash", "(ls)", "cat <<EOF\nx\nEOF", "cat <<< x", "echo `ls`", "echo $((1))", "echo ${x:-y}", "echo $'\\x72m'", "diff <(ls) x"]) {
      expect(parseQuick(s), s).toBeUndefined();
    }
  });
});
