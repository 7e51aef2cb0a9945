/**
 * Workspace trust as a service ("workspace.trust") for the plugins that read repository files: the
 * claude-settings plugin applies project allow rules, hooks and `.mcp.json` servers only in a trusted
 * workspace; the permissions plugin reads what the user's store grants a plugin. An embedding program
 * may declare trust (`createHost({ trustWorkspace: true | false })`); otherwise toolhost's store and
 * Claude Code's ~/.claude.json decide. On the toolhost CLI with a terminal, an untrusted workspace with
 * something to withhold is asked about once (never under `serve` or `watch`, never without a TTY).
 */
import path from "node:path";
import readline from "node:readline";
import { definePlugin, type PluginContext } from "../../core/index.ts";
import { projectConfigGate } from "./project-config.ts";
import { mcpApproved, setTrust, storedPluginGrant, trustState, type PluginGrant, type TrustState } from "./store.ts";

export const TRUST_SERVICE = "workspace.trust";

export interface WorkspaceTrust {
  /** The host's workspace, read fresh (the store may change between builds). */
  state(): TrustState;
  mcpApproved(state: TrustState, name: string): boolean;
  /** Something an untrusted workspace would withhold: ask on a terminal (once per host); the state after. */
  confirm(withheld: string[], mcpServers: string[]): Promise<TrustState>;
  /** What the user's trust store grants a plugin beyond its own tools. */
  pluginGrant(id: string): PluginGrant | undefined;
}

/** CLI commands that may prompt: never `serve` (stdin is the protocol), `watch` or `trust` itself. */
const GLOBAL_VALUES = new Set(["--cwd", "--config", "--plugin-dir", "--mode", "--settings"]);
const PROMPTING = new Set(["tools", "call", "explain", "check", "hooks", "search", "agents"]);

function cliMayPrompt(): boolean {
  const bin = path.basename(process.argv[1] ?? "");
  if (bin !== "toolhost" && bin !== "toolhost.mjs") return false;
  const args = process.argv.slice(2);
  // the first word that is neither a flag nor a global flag's value
  const cmd = args.find((a, i) => !a.startsWith("-") && !GLOBAL_VALUES.has(args[i - 1] ?? ""));
  return !!cmd && PROMPTING.has(cmd) && !!process.stdin.isTTY && !!process.stderr.isTTY;
}

function option(ctx: PluginContext): boolean | undefined {
  const v = ctx.host.options.trustWorkspace;
  return typeof v === "boolean" ? v : undefined;
}

export default definePlugin({
  name: "trust",
  apply(ctx) {
    let asked = false;
    const service: WorkspaceTrust = {
      state: () => trustState(ctx.host.cwd, option(ctx)),
      mcpApproved: (s, name) => s.trusted && mcpApproved(s.mcp, name),
      pluginGrant: storedPluginGrant,
      async confirm(withheld, mcpServers) {
        const before = service.state();
        const mayPrompt = typeof ctx.host.options.trustPrompt === "boolean" ? ctx.host.options.trustPrompt && !!process.stdin.isTTY : cliMayPrompt();
        if (before.trusted || asked || !mayPrompt || option(ctx) !== undefined) return before;
        asked = true;
        const answer = await question(
          `toolhost: the folder ${ctx.host.cwd} is not trusted. Trusting it applies:\n${withheld.map((w) => `  - ${w}`).join("\n")}\nOnly trust folders whose files you or your team wrote. Trust this folder? [y/N] `,
        );
        if (!/^y(es)?$/i.test(answer.trim())) return before;
        setTrust(ctx.host.cwd, true, mcpServers);
        return service.state();
      },
    };
    ctx.provide(TRUST_SERVICE, service);
    // A toolhost config found in the project: its plugins, hooks and servers wait for trust (project-config.ts).
    const gate = projectConfigGate(ctx, service.state, (withheld) => service.confirm(withheld, []));
    ctx.hooks.discover.tapPromise({ name: "trust", stage: DISCOVER_STAGE_TRUST }, (sources) => gate.sources(sources));
    ctx.hooks.build.tap({ name: "trust", stage: -1000 }, (build) => {
      const problems = gate.build(build);
      if (problems.length) build.hooks.collect.tap("trust", (c) => void problems.forEach((p) => c.problem(p)));
    });
  },
});

/** Before the watch plugin's discover tap, so what is withheld is not watched as a plugin either. */
const DISCOVER_STAGE_TRUST = -100;

function question(prompt: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    rl.question(prompt, (a) => {
      rl.close();
      resolve(a);
    });
  });
}
