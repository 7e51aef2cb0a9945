/**
 * The CLI's core commands, in the order `toolhost --help` lists them: metadata here, so help and flag
 * parsing import nothing; a command's module is imported only when it runs. Plugins add theirs with
 * `cliCommands` in their manifests (main.ts reads them): check, doctor, init, plugin, rules, trust, ….
 */
import type { Command, CommandContext } from "../context.ts";

type Meta = Omit<Command, "run">;
const lazy = (meta: Meta, load: () => Promise<{ run(ctx: CommandContext): Promise<number> }>): Command => ({ ...meta, run: async (ctx) => (await load()).run(ctx) });

export const commands: Command[] = [
  lazy({ name: "tools", summary: "list the tool pool as the model sees it (loaded, deferred, excluded, errors)", usage: "toolhost tools [--json] [--usage]", flags: { usage: "per-tool session frequency from the session store and usage-driven deferral suggestions (tool-search)" } }, () => import("./tools.ts")),
  lazy(
    { name: "explain", summary: "say why a tool is loaded, deferred, excluded or unknown (rule, plugin, file)", usage: "toolhost explain <tool> [--json]", flags: {}, exits: { "1": "the tool is unknown" } },
    () => import("./explain.ts"),
  ),
  lazy(
    {
      name: "call",
      summary: "run one tool call through the whole pipeline (rules, hooks, shaping)",
      usage: "toolhost call <tool> '<json>' [--json] [--dry-run] [--yes] [--trace] [--session ID]",
      values: ["session"],
      flags: {
        "dry-run": "decide only: run every stage before the tool, then stop",
        yes: "approve an ask without prompting (without it and without a terminal, an ask is not run)",
        trace: "print each stage's decision (stage, plugin, rule, file)",
        "session ID": "run in session ID (ToolSearch loads, read state, approvals)",
      },
      exits: { "0": "ran and succeeded", "1": "the tool reported an error", "2": "denied, blocked or not approved", "3": "bad usage (unknown tool, invalid input)" },
    },
    () => import("./call.ts"),
  ),
];
