/** Property-based tests (fast-check) of the rule parser and matcher. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatRule, matchesRule, parseRule } from "../../lib/rules/match.ts";
import { tempProject } from "./helpers.ts";

const cwd = tempProject({ ".env": "x" });
/** PROP_RUNS=5000 npx vitest run test/permissions/properties.test.ts for a longer hunt. */
const NUM_RUNS = Number(process.env.PROP_RUNS ?? 150);

const toolName = fc.constantFrom("Bash", "Read", "Edit", "Write", "Grep", "WebFetch", "Agent", "Skill", "WebSearch", "mcp__github", "mcp__github__get_issue", "Task", "MyTool", "mcp__*", "*");
const specChar = fc.constantFrom(..."abcxyz019 -_./*:~".split(""));
const spec = fc.array(specChar, { minLength: 1, maxLength: 16 }).map((cs) => cs.join(""));
/** Words that are plain command names/arguments (no shell metacharacters). */
const word = fc.constantFrom("git", "npm", "rm", "ls", "cat", "echo", "make", "push", "status", "test", "-rf", "-la", "x", "src", "a.txt", "main");
const commandName = fc.constantFrom("git", "npm", "rm", "ls", "cat", "echo", "make", "x");
/** A command name, then up to three arguments (flags included). */
const simpleCommand = fc.tuple(commandName, fc.array(word, { maxLength: 3 })).map(([c, ws]) => [c, ...ws].join(" "));
const separator = fc.constantFrom(" && ", " || ", " ; ", " | ", " |& ", " & ", "\n");
const wrapper = fc.constantFrom("timeout 5 ", "time ", "nice -n 5 ", "nice ", "nohup ", "stdbuf -oL ", "command ", "builtin ", "noglob ", "env ", "env -i A=b ", "FOO=1 ", "A=1 B=2 ", "sudo ", "xargs ", "timeout -k 2 10 ");

function validRule(tool: string, s: string | undefined): string {
  if (s === undefined) return tool;
  if (tool.includes("*") || (tool.startsWith("mcp__") && !tool.slice(5).includes("__"))) return tool;
  if (tool === "WebFetch") return `WebFetch(domain:${s.replace(/[^a-z0-9.*]/g, "") || "x"})`;
  return `${tool}(${s})`;
}

describe("rule parser", () => {
  it("format ∘ parse is a fixed point (round trip)", () => {
    fc.assert(
      fc.property(toolName, fc.option(spec, { nil: undefined }), (tool, s) => {
        const text = validRule(tool, s);
        let r;
        try {
          r = parseRule(text);
        } catch {
          return; // invalid texts are covered by the next property
        }
        const again = parseRule(formatRule(r));
        expect({ tool: again.tool, specifier: again.specifier, kind: again.kind }).toEqual({ tool: r.tool, specifier: r.specifier, kind: r.kind });
        expect(formatRule(again)).toBe(formatRule(r));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("never crashes: returns a rule or throws an Error with a message", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          const r = parseRule(text);
          expect(typeof r.tool).toBe("string");
        } catch (e) {
          expect(e).toBeInstanceOf(Error);
          expect((e as Error).message.length).toBeGreaterThan(5);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("Tool(*) ≡ Tool for every tool", () => {
    fc.assert(
      fc.property(fc.constantFrom("Bash", "Read", "Edit", "Agent", "WebFetch", "MyTool", "Skill"), (tool) => {
        expect(formatRule(parseRule(`${tool}(*)`))).toBe(tool);
        expect(parseRule(`${tool}(*)`).kind).toBe("tool");
      }),
    );
  });
});

describe("Bash matcher", () => {
  it("allow needs every part, deny needs any part", () => {
    fc.assert(
      fc.property(fc.array(simpleCommand, { minLength: 1, maxLength: 5 }), fc.array(separator, { minLength: 5, maxLength: 5 }), word, (cmds, seps, head) => {
        // `npm x CMD` runs CMD (npm exec): deny then also sees CMD, which this simple model does not know.
        fc.pre(!cmds.some((c) => /^npm x( |$)/.test(c)));
        const command = cmds.map((c, i) => (i ? seps[i - 1] : "") + c).join("");
        const rule = `Bash(${head} *)`;
        const starts = cmds.map((c) => c === head || c.startsWith(`${head} `));
        const call = { toolName: "Bash", input: { command } };
        expect(matchesRule(rule, call, { cwd, behavior: "deny" })).toBe(starts.some(Boolean));
        expect(matchesRule(rule, call, { cwd, behavior: "allow" })).toBe(starts.every(Boolean));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("wrappers never change a deny verdict", () => {
    fc.assert(
      fc.property(simpleCommand, fc.array(wrapper, { minLength: 1, maxLength: 3 }), commandName, (cmd, wraps, head) => {
        const rule = `Bash(${head} *)`;
        const plain = matchesRule(rule, { toolName: "Bash", input: { command: cmd } }, { cwd, behavior: "deny" });
        const wrapped = matchesRule(rule, { toolName: "Bash", input: { command: wraps.join("") + cmd } }, { cwd, behavior: "deny" });
        if (plain) expect(wrapped).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("flag order and grouping never change a deny verdict", () => {
    const flagSet = fc.subarray(["v", "i", "d", "x"]).chain((extra) => fc.shuffledSubarray(["r", "f", ...extra], { minLength: 2 + extra.length, maxLength: 2 + extra.length }));
    fc.assert(
      fc.property(flagSet, fc.integer({ min: 0, max: 3 }), fc.constantFrom("/", "build", "x y"), (flags, split, operand) => {
        const a = flags.slice(0, split).join("");
        const b = flags.slice(split).join("");
        const command = `rm ${[a && `-${a}`, b && `-${b}`].filter(Boolean).join(" ")} ${operand}`;
        expect(matchesRule("Bash(rm -rf *)", { toolName: "Bash", input: { command } }, { cwd, behavior: "deny" })).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("a deny hit inside $( ), backticks, subshells and bash -c is still a hit", () => {
    const wrapInShell = fc.constantFrom((c: string) => `echo $(${c})`, (c: string) => `echo \`${c}\``, (c: string) => `(${c})`, (c: string) => `bash -c '${c}'`, (c: string) => `{ ${c}; }`, (c: string) => `if true; then ${c}; fi`);
    fc.assert(
      fc.property(simpleCommand, wrapInShell, (cmd, wrap) => {
        const rule = "Bash(rm *)";
        const plain = matchesRule(rule, { toolName: "Bash", input: { command: cmd } }, { cwd, behavior: "deny" });
        if (plain) expect(matchesRule(rule, { toolName: "Bash", input: { command: wrap(cmd) } }, { cwd, behavior: "deny" })).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe("path matcher", () => {
  it("normalisation: any detour through ../ still hits a deny", () => {
    const seg = fc.constantFrom("a", "b", "src", "x.y", "node_modules");
    fc.assert(
      fc.property(fc.array(seg, { minLength: 0, maxLength: 4 }), (dirs) => {
        const detour = dirs.map((d) => `${d}/..`).join("/");
        const p = detour ? `${detour}/.env` : ".env";
        expect(matchesRule("Read(.env)", { toolName: "Read", input: { file_path: p } }, { cwd })).toBe(true);
        expect(matchesRule("Read(.env)", { toolName: "Bash", input: { command: `cat ${p}` } }, { cwd })).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("a bare filename matches at any depth, an anchored one only at its place", () => {
    const seg = fc.constantFrom("a", "b", "src", "deep");
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 4 }), (dirs) => {
        const p = `${dirs.join("/")}/id.pem`;
        expect(matchesRule("Read(*.pem)", { toolName: "Read", input: { file_path: p } }, { cwd })).toBe(true);
        expect(matchesRule("Read(/id.pem)", { toolName: "Read", input: { file_path: p } }, { cwd })).toBe(false);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe("robustness", () => {
  it("matching never throws on arbitrary command text", () => {
    const shellish = fc.array(fc.constantFrom(..."ab rm$(){}[]|&;<>'\"`\\\n*?~=-#!".split(""), "rm ", "cat ", "$(", "<<EOF\n", "\nEOF\n", "{a,b}", "$'\\x72'", "bash -c ", "find . -exec "), { maxLength: 30 }).map((a) => a.join(""));
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string({ maxLength: 60 })), (command) => {
        for (const behavior of ["allow", "deny"] as const) {
          expect(() => matchesRule("Bash(rm *)", { toolName: "Bash", input: { command } }, { cwd, behavior })).not.toThrow();
          expect(() => matchesRule("Read(.env)", { toolName: "Bash", input: { command } }, { cwd, behavior })).not.toThrow();
        }
      }),
      { numRuns: 400 },
    );
  });
});
