/**
 * Rules with examples: `permissions.tests: [{ rule, match: [...], not_match: [...] }]`. They run
 * when rules load (every build), so a rule that does not do what its author meant fails loudly
 * with an error naming the plugin, the file, the JSON path, the rule and the example.
 *
 * An example is a tool call `{ "tool": "Bash", "input": { "command": "git push" } }` or, for
 * convenience, a string: a command for Bash rules, a path for Read/Edit rules, a URL or host for
 * WebFetch rules, a subagent type for Agent rules, a tool name for whole-tool rules.
 */
import type { LoadedPlugin, ProblemReport } from "../../core/index.ts";
import { matchesRule, parseRule, type Behavior, type MatchCall, type ParsedRule } from "../../lib/rules/match.ts";

export function runExamples(plugins: readonly LoadedPlugin[], cwd: string): ProblemReport[] {
  const problems: ProblemReport[] = [];
  for (const lp of plugins) {
    const comp = lp.components.permissions;
    const tests = comp?.value.tests;
    if (!comp || !Array.isArray(tests)) continue;
    tests.forEach((t, i) => {
      const jp = `${comp.jsonPath}/tests/${i}`;
      const err = (path: string, message: string) => problems.push({ plugin: lp.id, file: comp.file, path, message, severity: "error" });
      let rule: ParsedRule;
      try {
        rule = parseRule(t.rule);
      } catch (e) {
        err(`${jp}/rule`, `invalid rule ${JSON.stringify(t.rule)} in a rule test: ${(e as Error).message}`);
        return;
      }
      const v = comp.value;
      const behavior: Behavior = v.deny?.includes(t.rule) ? "deny" : v.ask?.includes(t.rule) ? "ask" : "allow";
      for (const key of ["match", "not_match"] as const) {
        const list = t[key];
        if (list === undefined) continue;
        if (!Array.isArray(list)) {
          err(`${jp}/${key}`, `${key} must be an array of examples`);
          continue;
        }
        list.forEach((ex, j) => {
          const path = `${jp}/${key}/${j}`;
          const call = exampleCall(ex, rule);
          if (typeof call === "string") return err(path, `rule test for "${t.rule}": ${call}`);
          const got = matchesRule(rule, call, { cwd, rulesRoot: lp.rulesRoot, behavior });
          const want = key === "match";
          if (got !== want) {
            err(
              path,
              `RULE EXAMPLE FAILED: ${behavior} rule "${t.rule}" should ${want ? "" : "not "}match ${JSON.stringify(ex)} (as ${call.toolName} ${JSON.stringify(call.input)}), but it ${got ? "does" : "does not"}. Fix the rule or the example.`,
            );
          }
        });
      }
    });
  }
  return problems;
}

/** An example as a tool call, or a message saying why it cannot be one. */
export function exampleCall(ex: unknown, rule: ParsedRule): MatchCall | string {
  if (ex && typeof ex === "object" && !Array.isArray(ex)) {
    const o = ex as Record<string, unknown>;
    const tool = o.tool ?? o.toolName ?? o.tool_name;
    if (typeof tool !== "string") return `example ${JSON.stringify(ex)} needs a "tool" name and an "input" object`;
    return { toolName: tool, input: o.input ?? o.tool_input ?? {} };
  }
  if (typeof ex !== "string") return `example ${JSON.stringify(ex)} must be a string or {"tool": …, "input": {…}}`;
  switch (rule.kind) {
    case "bash":
      return { toolName: rule.tool === "PowerShell" ? "PowerShell" : "Bash", input: { command: ex } };
    case "path":
      return { toolName: rule.onlyTool ?? (rule.family === "read" ? "Read" : "Edit"), input: { file_path: ex } };
    case "domain":
      return { toolName: "WebFetch", input: { url: /^[a-z]+:\/\//i.test(ex) ? ex : `https://${ex}/` } };
    case "agent":
      return { toolName: "Agent", input: { subagent_type: ex } };
    case "skill":
      return { toolName: "Skill", input: { skill: ex } };
    case "tool":
      if (rule.tool === "Bash") return { toolName: "Bash", input: { command: ex } };
      return { toolName: ex, input: {} };
    default:
      return `a string example cannot be turned into a ${rule.tool} call; write {"tool": "${rule.tool}", "input": {…}}`;
  }
}
