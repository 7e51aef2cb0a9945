/**
 * The conformance cases' shared pieces, used by the recorder (scripts/conformance/record.mjs, against Claude Code)
 * and the replay (test/conformance/replay.test.ts, through toolhost), so both see the same files, settings, hooks
 * and plugins, and both observations are normalized the same way.
 *
 * A scratch root holds `project/` (the cwd), `home/` (HOME), `bin/hook-recorder.sh`, `hooks/` (what the recording
 * hook saw), `hooks.jsonl` (what fixture plugins' own hook scripts saw), `plugins/<name>/` (copies of
 * test/fixtures/cc-plugins/<name>) and `tmp/`.
 * `{{cwd}}`, `{{home}}` and `{{root}}` in a case's inputs, files and settings stand for their absolute paths.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, "../..");
export const PLUGIN_FIXTURES = path.join(REPO, "test/fixtures/cc-plugins");
export const RECORDINGS = path.join(HERE, "recordings");

/** The tool_use id of a case's i-th step (0-based), the same in the recording and the replay. */
export const stepId = (i) => `toolu_${String(i + 1).padStart(2, "0")}`;

/**
 * Where a hook's settings live: settings.json of the project, settings.local.json, the user's ~/.claude/settings.json,
 * and managed settings (`managed/` under the scratch root: the replay's managedSettingsDir; the recorder installs the
 * file as /etc/claude-code/managed-settings.json for the run and restores what was there).
 */
const SETTINGS_FILE = { project: "project/.claude/settings.json", local: "project/.claude/settings.local.json", user: "home/.claude/settings.json", managed: "managed/managed-settings.json" };

export function substitute(v, L) {
  if (typeof v === "string") return v.replaceAll("{{cwd}}", L.project).replaceAll("{{home}}", L.home).replaceAll("{{root}}", L.root).replaceAll("{{repo}}", REPO).replaceAll("{{node}}", L.node);
  if (Array.isArray(v)) return v.map((x) => substitute(x, L));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, L)]));
  return v;
}

/** The recording hook's command line for one hook spec ({label, respond: {stdout?, stderr?, exit?}}). */
export function recorderCommand(L, spec) {
  const r = spec.respond ?? {};
  const b64 = (v) => (v === undefined || v === "" ? "" : Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64"));
  const args = [r.exit ?? 0, b64(r.stdout), b64(r.stderr)].map((a) => (a === "" ? "''" : a));
  while (args.length && args[args.length - 1] === "''") args.pop();
  if (args.length === 1 && args[0] === 0) args.pop();
  return `sh ${L.root}/bin/hook-recorder.sh ${L.hookDir} ${spec.label}${args.length ? ` ${args.join(" ")}` : ""}`;
}

/** Settings objects per layer: the case's own `settings[layer]` plus its `hooks` of that layer, in case order. */
export function settingsFor(c, L) {
  const out = {};
  for (const [layer, s] of Object.entries(c.settings ?? {})) out[layer] = substitute(structuredClone(s), L);
  for (const h of c.hooks ?? []) {
    const layer = h.where ?? "project";
    const s = (out[layer] ??= {});
    const ev = ((s.hooks ??= {})[h.event] ??= []);
    // `command`: a case's own hook command (it should end by running the recording hook under its label).
    const cmd = { type: "command", command: h.command ? substitute(h.command, L) : recorderCommand(L, h), ...(h.timeout ? { timeout: h.timeout } : {}), ...(h.shell ? { shell: h.shell } : {}) };
    ev.push(h.matcher === undefined ? { hooks: [cmd] } : { matcher: h.matcher, hooks: [cmd] });
  }
  return out;
}

function writeFiles(dir, files, L) {
  for (const [rel, text] of Object.entries(files ?? {})) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, substitute(String(text), L));
  }
}

/** Build a case's layout under `root` (an empty real directory). `node`: the node binary hook commands name. */
export function buildLayout(root, c, node = process.execPath) {
  const L = { root, project: path.join(root, "project"), home: path.join(root, "home"), hookLog: path.join(root, "hooks.jsonl"), hookDir: path.join(root, "hooks"), node, plugins: [], managedDir: path.join(root, "managed") };
  for (const d of [L.project, L.home, path.join(root, "bin"), path.join(root, "tmp")]) fs.mkdirSync(d, { recursive: true });
  fs.copyFileSync(path.join(HERE, "hook-recorder.sh"), path.join(root, "bin/hook-recorder.sh"));
  fs.mkdirSync(L.hookDir);
  fs.writeFileSync(L.hookLog, "");
  writeFiles(L.project, c.files, L);
  writeFiles(L.home, c.homeFiles, L);
  for (const [layer, s] of Object.entries(settingsFor(c, L))) {
    const f = path.join(root, SETTINGS_FILE[layer]);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, JSON.stringify(s, null, 2));
  }
  // The --settings layer: a file passed to `claude --settings` and to createHost({settings}); `hooks: "label"` adds a
  // PreToolUse Bash recording hook with that label.
  if (c.cliSettings) {
    const { hooks: label, ...rest } = c.cliSettings;
    const cli = substitute(structuredClone(rest), L);
    if (label) cli.hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: recorderCommand(L, { label }) }] }] };
    L.cliSettings = path.join(root, "cli-settings.json");
    fs.writeFileSync(L.cliSettings, JSON.stringify(cli, null, 2));
  }
  if (c.mcp) fs.writeFileSync(path.join(L.project, ".mcp.json"), JSON.stringify({ mcpServers: substitute(c.mcp, L) }, null, 2));
  for (const name of c.plugins ?? []) {
    const dest = path.join(root, "plugins", name);
    fs.cpSync(path.join(PLUGIN_FIXTURES, name), dest, { recursive: true });
    // Server configs may name this checkout's binaries: {{repo}}, {{node}} are filled in here.
    for (const f of [".mcp.json", ".lsp.json"].map((x) => path.join(dest, x)).filter((x) => fs.existsSync(x))) fs.writeFileSync(f, substitute(fs.readFileSync(f, "utf8"), L));
    L.plugins.push(dest);
  }
  // Claude Code's trust store: the project is trusted (the replay passes trustWorkspace: true to toolhost).
  fs.writeFileSync(path.join(L.home, ".claude.json"), JSON.stringify({ hasCompletedOnboarding: true, projects: { [L.project]: { hasTrustDialogAccepted: true, allowedTools: [] } } }));
  return L;
}

/** Every file under `dir` (relative path → text), skipping .claude/ and .git/. */
export function snapshot(dir) {
  const out = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== ".claude" && e.name !== ".git") walk(p);
      } else if (e.isFile()) out[path.relative(dir, p)] = fs.readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

/** Files created or changed (→ text) and removed (→ null) between two snapshots. */
export function fileChanges(before, after) {
  const out = {};
  for (const [k, v] of Object.entries(after)) if (before[k] !== v) out[k] = v;
  for (const k of Object.keys(before)) if (!(k in after)) out[k] = null;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** Environment keys never compared: the runner's own (HOME, PATH, CLAUDE_CONFIG_DIR …) and the shell's bookkeeping. */
const ENV_SKIP = new Set(["HOME", "PATH", "TMPDIR", "SHLVL", "_", "OLDPWD", "CLAUDE_CONFIG_DIR"]);

/**
 * The hook invocations of a run, in the order they started: {label, event, stdin, env} where env holds only what the
 * runner added to or changed in `baseEnv` (the environment the runner itself was started with). Read from the
 * recording hook's directory (L.hookDir) and from L.hookLog, where fixture plugins' own scripts append JSON lines.
 */
export function readHookLog(L, baseEnv) {
  const runs = [];
  if (fs.existsSync(L.hookDir))
    for (const f of fs.readdirSync(L.hookDir).filter((x) => x.endsWith(".label")).sort()) {
      const base = path.join(L.hookDir, f.slice(0, -".label".length));
      const text = fs.readFileSync(`${base}.stdin`, "utf8");
      let stdin;
      try { stdin = JSON.parse(text); } catch { stdin = text; }
      const env = Object.fromEntries(fs.readFileSync(`${base}.env`, "utf8").split("\0").filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
      runs.push({ at: f, label: fs.readFileSync(`${base}.label`, "utf8"), stdin, env });
    }
  if (fs.existsSync(L.hookLog)) for (const line of fs.readFileSync(L.hookLog, "utf8").split("\n").filter(Boolean)) runs.push({ at: "~", ...JSON.parse(line) });
  // Hooks of one event run in parallel, so their start order varies from run to run: a call's runs are sorted by
  // label (stable), calls and call-less events keep the order they first appeared in, so re-recordings diff cleanly.
  const groups = new Map();
  runs.forEach((r, i) => {
    const key = r.stdin?.tool_use_id ?? r.stdin?.tool_calls?.[0]?.tool_use_id ?? `#${i}`;
    const k = `${key}\0${r.stdin?.hook_event_name ?? ""}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  });
  const ordered = [...groups.values()].flatMap((g) => g.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0)));
  return ordered.map((r) => {
    const env = {};
    for (const k of Object.keys(r.env).sort()) if (!ENV_SKIP.has(k) && baseEnv[k] !== r.env[k]) env[k] = r.env[k];
    return { label: r.label, event: r.stdin?.hook_event_name ?? null, stdin: r.stdin, env };
  });
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
/** Env values that name a process, a token or a user id of this run. */
const ENV_VOLATILE = { CLAUDE_PID: "{{pid}}", CLAUDE_CODE_MESSAGING_TOKEN: "{{token}}" };

/**
 * Scrub one run's observation: machine paths to {{cwd}}/{{home}}/{{root}}/{{node}}, the session's ids to
 * {{session_id}}/{{prompt_id}}, other UUIDs to {{uuid}}, timestamps to {{time}}, durations to 0.
 */
export function scrub(obs, L) {
  const ids = new Map();
  for (const h of obs.hooks ?? []) {
    if (typeof h.stdin?.session_id === "string" && h.stdin.session_id) ids.set(h.stdin.session_id, "{{session_id}}");
    if (typeof h.stdin?.prompt_id === "string" && h.stdin.prompt_id) ids.set(h.stdin.prompt_id, "{{prompt_id}}");
  }
  const pid = obs.hooks?.find((h) => h.env.CLAUDE_PID)?.env.CLAUDE_PID;
  const slug = (p) => p.replace(/[^A-Za-z0-9]/g, "-");
  const pairs = [[L.project, "{{cwd}}"], [slug(L.project), "{{cwd-slug}}"], [L.home, "{{home}}"], [L.root, "{{root}}"], [L.node, "{{node}}"], [L.toolhostHome, "{{toolhost-home}}"], ...ids];
  const str = (s) => {
    for (const [a, b] of pairs) if (a) s = s.replaceAll(a, b);
    s = s.replace(UUID, "{{uuid}}").replace(ISO, "{{time}}").replace(/\/claude-\d+\//g, "/claude-{{uid}}/");
    if (pid) s = s.replaceAll(`/${pid}.sock`, "/{{pid}}.sock");
    return s;
  };
  const walk = (v, key) => {
    if (typeof v === "string") return str(v);
    if (typeof v === "number" && (key === "duration_ms" || key === "durationMs")) return 0;
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  const out = walk(obs);
  for (const h of out.hooks ?? []) for (const [k, ph] of Object.entries(ENV_VOLATILE)) if (k in h.env) h.env[k] = ph;
  return out;
}

/** The text a model sees in a tool_result's content (a string, or text/image blocks). */
export function resultText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
}

/** The recording of a case, or undefined when it was never recorded. */
export function loadRecording(id) {
  const f = path.join(RECORDINGS, `${id}.json`);
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, "utf8")) : undefined;
}
