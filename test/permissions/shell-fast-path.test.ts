/**
 * The shell parser's fast path (lib/rules/shell.ts parseSimple: plain words in simple commands joined by `&& || ; |`)
 * must give exactly what the full mvdan-sh parse gives on every input it accepts, and decline the rest: fast-check
 * over command lines built from plain words, reserved words, assignments, separators and stray metacharacters.
 * PROP_RUNS=20000 for a longer hunt.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseFull, parseSimple } from "../../lib/rules/shell.ts";

const NUM_RUNS = Number(process.env.PROP_RUNS ?? 3000);
/** Plain words, some of them `NAME=value` (an assignment only before the command name) or echo/printf (a literal piped on). */
const common = fc.constantFrom("ls", "git", "status", "rm", "-rf", "build", "echo", "printf", "cat", "sh", "a=b", "x=1", "1a=b", "_=x", "k=v=w", "a+=b", "--", "-", "%1", "a,b", "@x", "+x", "/bin/rm", ".", "..", "src/a.ts", "-n5", "--x=y");
/** Reserved words, declarations and `time`, and words with metacharacters: the fast path must decline them. */
const trouble = fc.constantFrom(
  "time", "export", "local", "declare", "readonly", "typeset", "let", "if", "then", "fi", "do", "done", "in", "for", "case", "esac", "function", "coproc",
  "select", "while", "!", "{", "}", "[[", "]]", "~", "#", "a#b", "$x", "'q'", "\"q\"", "a\\b", "*", "?", "[a]", "(", ")", "<", ">", "2>", "x&",
);
const plain = fc.array(fc.constantFrom(..."abz019_./:@%+,=-"), { minLength: 1, maxLength: 6 }).map((cs) => cs.join(""));
const word = fc.oneof({ weight: 4, arbitrary: common }, { weight: 1, arbitrary: trouble }, { weight: 3, arbitrary: plain });
const sep = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(" ", " ", " ", "  ", "\t", " && ", "&&", " || ", "||", "; ", ";", " ; ", " | ", "|") },
  { weight: 1, arbitrary: fc.constantFrom(" & ", "&", " |& ", ";;", "\n", " &&& ", " ;; ") },
);
const line = fc
  .tuple(fc.constantFrom("", " ", "\t", ";"), fc.array(fc.tuple(word, sep), { minLength: 0, maxLength: 6 }), word, fc.constantFrom("", " ", ";", " ;", "&&", "|", "\t"))
  .map(([lead, pairs, last, tail]) => lead + pairs.map(([w, s]) => w + s).join("") + last + tail);
const noise = fc.array(fc.constantFrom(..."ab1-=/.;|& \t$'\"#~{}*()<>\\\n".split("")), { maxLength: 30 }).map((cs) => cs.join(""));

describe("shell fast path ≡ the full parser", () => {
  it("accepts only what the full parser parses, with the same commands and words", () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: line }, { weight: 1, arbitrary: noise }), (src) => {
        const fast = parseSimple(src);
        if (!fast) return;
        accepted++;
        expect(fast, JSON.stringify(src)).toEqual(parseFull(src));
      }),
      { numRuns: NUM_RUNS },
    );
    // The property is only worth something if the fast path takes a good share of the inputs.
    expect(accepted).toBeGreaterThan(NUM_RUNS / 10);
  });

  it("takes the everyday simple commands and declines what needs the parser", () => {
    for (const s of ["git status", "npm test && npm run build", "ls -la src | wc -l", "make; make install", "git log --oneline -5 || true", "cat a.txt|sort", "ls;"]) {
      expect(parseSimple(s), s).toEqual(parseFull(s));
    }
    for (const s of ["echo hi | sh", "time ls", "export A=1", "A=1 ls", "ls &", "ls > f", "cat 'a'", "ls $HOME", "ls ~", "ls *.ts", "ls && ", "; ls", "ls\nrm x", "if true", "ls # c", "{ ls; }", "printf x|bash"]) {
      expect(parseSimple(s), s).toBeUndefined();
    }
  });
});
