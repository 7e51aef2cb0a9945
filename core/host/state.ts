/** What the long-lived Host keeps between generations; read and written by the rebuild path. */
import type { ProblemReport } from "../errors.ts";
import type { Build } from "../build/build.ts";
import type { AskAnswer, AskRequest, HostConfig, HostHooks, HostView, LoadedPlugin, Logger, ModeLock, ModeSource, PluginDefinition, PluginSource, PoolDiff, PoolSnapshot, StepEvent, Tool } from "../types.ts";
import type { Activator } from "./activate.ts";

export interface HostOptions {
  cwd?: string;
  /** Explicit config file (else cosmiconfig searches cwd). */
  configFile?: string;
  /** Inline config merged over the file's. */
  config?: HostConfig;
  /** Extra plugin directories (like `claude --plugin-dir`). */
  pluginDirs?: string[];
  /** In-process plugins (definePlugin objects). */
  plugins?: PluginDefinition[];
  /** Load the bundled manifests/ (default true). */
  bundled?: boolean;
  mode?: string;
  /** Answer "ask" decisions (library). */
  onAsk?: (req: AskRequest) => AskAnswer | Promise<AskAnswer>;
  /** Debounce for invalidate() in ms (default 50). */
  debounceMs?: number;
  /** Longest an invalidate() storm may postpone its rebuild, in ms (default max(1000, 20 × debounceMs)). */
  maxWaitMs?: number;
  /** Watch plugin directories, config and settings files and rebuild on change (the watch plugin). */
  watch?: boolean;
  logger?: Partial<Logger>;
  /** Called at each edge of a long step a plugin announced (`ctx.step`); the CLI draws its progress line from it. */
  onStep?: (event: StepEvent) => void;
  /** Where plugin data dirs live (default ~/.toolhost/plugins/data). */
  dataHome?: string;
  /**
   * Claude Code's `--settings`: a settings file path, JSON text or an object, applied above
   * .claude/settings.local.json and below managed settings (the claude-settings plugin).
   */
  settings?: string | Record<string, unknown>;
  /**
   * The embedder's own transcript (Claude Code's JSONL format), given to hooks as `transcript_path`: a path,
   * or a function of the session id. Without it toolhost writes one while hooks are loaded (the transcript plugin).
   */
  transcriptPath?: string | ((sessionId: string) => string);
  /** Where managed settings are read (default /etc/claude-code on Linux; TOOLHOST_MANAGED_SETTINGS_DIR also sets it). */
  managedSettingsDir?: string;
  [key: string]: unknown;
}

export interface RebuildResult {
  ok: boolean;
  pool: PoolSnapshot;
  diff?: PoolDiff;
  problems: ProblemReport[];
  /** Problems that made the build fail (the previous pool kept serving). */
  failures?: ProblemReport[];
  ms: number;
}

export interface HostState {
  readonly options: HostOptions;
  readonly cwd: string;
  readonly hooks: HostHooks;
  readonly view: HostView;
  readonly log: Logger;
  readonly activator: Activator;
  readonly hostProblems: ProblemReport[];
  /** The serving generation: its Build (which holds the pool) — swapped with one assignment. */
  current?: Build;
  /** The current generation's config and plugins (HostView.config, host.plugins). */
  config: HostConfig;
  loaded: LoadedPlugin[];
  loadProblems: ProblemReport[];
  generation: number;
  mode: string;
  modeSource: ModeSource;
  /** Modes the configuration refuses (host.chooseMode): setMode throws, a build falls back to default. */
  modeLocks: ModeLock[];
  watchedFiles: string[];
  sources: readonly PluginSource[];
  allowAlways(tool: Tool, input: unknown, sessionId?: string): void;
}
