/**
 * `toolhost/testing`: test a plugin through the whole pipeline, as the host runs it — rules, hooks, shaping —
 * in a scratch project of its own. For plugin authors' tests (the `toolhost init` scaffold uses it with
 * `node --test`); works with any runner, since failures are thrown Errors.
 *
 *   const t = await testHost({ plugin: pluginDir, files: { "README.md": "hi" } });
 *   expectDecision(await t.decide("Bash", { command: "git push --force" }), "deny");
 *   const o = await t.call("word_count", { path: "README.md" });
 *   await t.close();
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, resultText, type ExecuteOptions, type ExecuteOutcome, type Host, type HostOptions, type ProblemReport } from "../core/index.ts";

export interface TestHostOptions {
  /** The plugin directory (or directories) under test, loaded like `--plugin-dir`. */
  plugin?: string | string[];
  /** Files of the scratch project: relative path → content. */
  files?: Record<string, string>;
  /** The project's `.claude/settings.json` (permissions, hooks), as Claude Code reads it. */
  settings?: Record<string, unknown>;
  /** Inline toolhost config (HostOptions.config). */
  config?: HostOptions["config"];
  /** Permission mode to start in (default "default"). */
  mode?: string;
  /** Any other host option (e.g. `bundled: false`). */
  hostOptions?: Partial<HostOptions>;
}

export interface TestOutcome extends ExecuteOutcome {
  /** The result's text, as the model sees it. */
  text: string;
}

export interface TestHost {
  readonly host: Host;
  /** The scratch project directory (removed by close()). */
  readonly dir: string;
  /** Run a call through the whole pipeline. An ask is not run unless `yes` or `onAsk` says so. */
  call(tool: string, input: unknown, options?: ExecuteOptions): Promise<TestOutcome>;
  /** What the pipeline decides for a call, without running the tool (a dry run). */
  decide(tool: string, input: unknown, options?: ExecuteOptions): Promise<TestOutcome>;
  /** Problems the host reported (load errors, refused rules, failing rule examples) — `errors()` only the errors. */
  problems(): ProblemReport[];
  errors(): ProblemReport[];
  close(): Promise<void>;
}

/** A host over a scratch project with the plugin under test loaded beside the bundled plugins. */
export async function testHost(options: TestHostOptions = {}): Promise<TestHost> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-test-")));
  for (const [rel, content] of Object.entries(options.files ?? {})) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  if (options.settings) {
    fs.mkdirSync(path.join(dir, ".claude"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".claude/settings.json"), JSON.stringify(options.settings, null, 2));
  }
  const plugins = options.plugin === undefined ? [] : Array.isArray(options.plugin) ? options.plugin : [options.plugin];
  const host = await createHost({
    cwd: dir,
    pluginDirs: plugins.map((p) => path.resolve(p)),
    config: options.config,
    mode: options.mode,
    dataHome: path.join(dir, ".toolhost-data"),
    // The scratch project is the test author's own: trusted, so its settings' allow rules and hooks apply.
    trustWorkspace: true,
    ...options.hostOptions,
  });
  const run = async (tool: string, input: unknown, o: ExecuteOptions = {}): Promise<TestOutcome> => {
    const out = await host.execute(tool, input, { source: "library", ...o });
    return { ...out, text: resultText(out.result) };
  };
  return {
    host,
    dir,
    call: run,
    decide: (tool, input, o) => run(tool, input, { ...o, dryRun: true }),
    problems: () => host.problems(),
    errors: () => host.problems().filter((p) => p.severity === "error"),
    close: async () => {
      await host.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const describeOutcome = (o: ExecuteOutcome) =>
  `${o.tool}: decision ${o.decision} (${o.status})${o.reason ? ` — ${o.reason}` : ""}${o.rule ? ` [rule ${o.rule}${o.plugin ? `, plugin ${o.plugin}` : ""}${o.file ? `, ${o.file}` : ""}]` : ""}`;

/** Throw unless the call was decided `expected` (allow, ask or deny); the message names the rule, plugin and file. */
export function expectDecision(o: ExecuteOutcome, expected: "allow" | "ask" | "deny"): void {
  if (o.decision !== expected) throw new Error(`expected ${expected}, got ${describeOutcome(o)}`);
}

/** Throw unless the call ran and the tool succeeded; returns the result text. */
export function expectOk(o: TestOutcome): string {
  if (!o.executed || o.status !== "ok") throw new Error(`expected the call to run and succeed, got ${describeOutcome(o)}\n${o.text}`);
  return o.text;
}

/** Throw unless the host loaded without errors (a broken manifest, a failing rule example, a refused rule …). */
export function expectNoErrors(t: Pick<TestHost, "errors">): void {
  const errs = t.errors();
  if (errs.length) throw new Error(`the host reported ${errs.length} error(s):\n${errs.map((p) => `  [${p.plugin}] ${p.file ?? ""}${p.path ? ` ${p.path}` : ""}: ${p.message}`).join("\n")}`);
}
