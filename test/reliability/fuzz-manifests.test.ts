/**
 * Fuzzing manifests and configs through the host (issue 12, "What to build" item 2): a fixed-seed run of
 * thousands of mutated plugin manifests (fields set to wrong types, removed, added, nested; JSON text cut,
 * corrupted or emptied) and mutated project configs, loaded by real hosts 40 plugins at a time next to one
 * good plugin. Nothing may crash or hang; every problem names its plugin and file; every mutated plugin that
 * does not load has an error naming a file inside it and the field (JSON path) — or, for text that is not
 * JSON, the parse failure; and the good plugin always loads and answers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, resultText, type Host, type ProblemReport } from "../../core/index.ts";
import { seededRandom as rng } from "../helpers.ts";

const SEED = Number(process.env.FUZZ_SEED) || 20261202;
const HOSTS = Number(process.env.FUZZ_HOSTS) || 60;
const PER_HOST = 40;


type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function baseManifest(name: string, withTools: boolean): Record<string, Json> {
  return {
    name,
    version: "1.0.0",
    description: "a fuzzed plugin",
    author: { name: "fuzz", email: "fuzz@example.invalid" },
    keywords: ["fuzz"],
    ...(withTools ? { tools: ["./tools.mjs"] } : {}),
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true", timeout: 5 }] }] },
    mcpServers: { s: { type: "http", url: "http://127.0.0.1:9/mcp" } },
    permissions: { deny: ["Bash(rm -rf /)"], ask: ["Write(/etc/**)"] },
    commands: ["./commands"],
  };
}

function valuePool(r: () => number): Json {
  const pool: Array<() => Json> = [
    () => null,
    () => true,
    () => 0,
    () => -1.5,
    () => 1e308,
    () => "",
    () => "x",
    () => "../../../../etc/passwd",
    () => "${CLAUDE_PLUGIN_ROOT}/../../..",
    () => "\u0000\u202e",
    () => "a".repeat(5000),
    () => [],
    () => ["./missing.mjs"],
    () => ({}),
    () => ({ type: "command" }),
    () => [{ matcher: 5, hooks: "no" }],
    () => ({ command: 42, args: "x" }),
    () => JSON.parse("[".repeat(200) + "]".repeat(200)) as Json,
    () => ({ __proto__: { polluted: true } }) as unknown as Json,
  ];
  return pool[Math.floor(r() * pool.length)]!();
}

/** A random container (object or array) inside `v`, with the path to it. */
function pick(v: Json, r: () => number): Json {
  let cur = v;
  for (let d = 0; d < 4; d++) {
    const kids = cur && typeof cur === "object" ? Object.values(cur).filter((x) => x && typeof x === "object") : [];
    if (!kids.length || r() < 0.35) break;
    cur = kids[Math.floor(r() * kids.length)]! as Json;
  }
  return cur;
}

function mutate(m: Record<string, Json>, r: () => number): string {
  const ops = 1 + Math.floor(r() * 3);
  for (let k = 0; k < ops; k++) {
    const target = pick(m, r) as Record<string, Json> | Json[];
    const keys = Object.keys(target);
    const key = keys.length && r() < 0.8 ? keys[Math.floor(r() * keys.length)]! : `unknownField${k}`;
    const op = r();
    if (op < 0.55) (target as Record<string, Json>)[key] = valuePool(r);
    else if (op < 0.75) delete (target as Record<string, Json>)[key];
    else if (op < 0.9) (target as Record<string, Json>)[key] = [(target as Record<string, Json>)[key] ?? null];
    else (target as Record<string, Json>)[key] = { wrapped: (target as Record<string, Json>)[key] ?? null };
  }
  let text = JSON.stringify(m, null, 2);
  const t = r();
  if (t < 0.04) text = text.slice(0, Math.floor(r() * text.length));
  else if (t < 0.07) {
    const at = Math.floor(r() * text.length);
    text = text.slice(0, at) + "\"{,:" [Math.floor(r() * 4)] + text.slice(at);
  } else if (t < 0.08) text = "";
  else if (t < 0.09) text = "\ufeff" + text;
  return text;
}

const TOOL = (name: string) => `export const t = { name: ${JSON.stringify(name)}, description: "d", inputSchema: { type: "object" }, call: () => "ok" };\n`;

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const inside = (f: string | undefined, dir: string) => !!f && (f === dir || f.startsWith(dir + path.sep));
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-fuzz-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

interface Tally {
  manifests: number;
  configs: number;
  loaded: number;
  refused: number;
  unattributed: string[];
  crashes: string[];
}

async function oneHost(h: number, r: () => number, tally: Tally): Promise<void> {
  const cwd = path.join(root, `h${h}`);
  const good = path.join(cwd, "good");
  write(path.join(good, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "good", tools: ["./tools.mjs"] }));
  write(path.join(good, "tools.mjs"), TOOL("good_tool"));
  const dirs: string[] = [];
  for (let k = 0; k < PER_HOST; k++) {
    const dir = path.join(cwd, `p${k}`);
    const withTools = r() < 0.2;
    if (withTools) write(path.join(dir, "tools.mjs"), TOOL(`fz_${h}_${k}`));
    write(path.join(dir, ".claude-plugin", "plugin.json"), mutate(baseManifest(`fz-${h}-${k}`, withTools), r));
    dirs.push(dir);
  }
  tally.manifests += PER_HOST;
  const badConfig = r() < 0.25;
  const configFile = path.join(cwd, "toolhost.config.json");
  write(configFile, badConfig ? mutate({ permissions: { allow: ["good_tool"] }, transcript: "t.jsonl", mode: "default" }, r) : JSON.stringify({ permissions: { allow: ["good_tool"] } }));
  if (badConfig) tally.configs++;
  let host: Host | undefined;
  try {
    host = await createHost({ cwd, pluginDirs: [good, ...dirs], onAsk: () => "allow", dataHome: path.join(cwd, ".data") });
    const o = await host.execute("good_tool", {}, { yes: true });
    if (o.status !== "ok" || resultText(o.result) !== "ok") tally.crashes.push(`host ${h}: the good plugin did not answer (${o.status}: ${o.reason ?? resultText(o.result)})`);
    check(host, h, dirs, configFile, tally);
  } catch (e) {
    tally.crashes.push(`host ${h}: ${e instanceof Error ? e.stack : String(e)}`);
  } finally {
    await host?.close();
  }
}

function check(host: Host, h: number, dirs: string[], configFile: string, tally: Tally): void {
  const problems = host.problems();
  for (const p of problems) if (!p.plugin || !p.message) tally.unattributed.push(`host ${h}: ${JSON.stringify(p)}`);
  const loaded = new Set(host.plugins.filter((p) => !p.failed).map((p) => p.root));
  for (const dir of dirs) {
    const mine = problems.filter((p) => inside(p.file, dir));
    const errors = mine.filter((p) => p.severity === "error");
    if (loaded.has(dir) && !errors.length) {
      tally.loaded++;
      continue;
    }
    tally.refused++;
    const named = errors.some((p: ProblemReport) => p.plugin && (p.path !== undefined || /JSON|parse|empty|Unexpected/i.test(p.message)));
    if (!named) tally.unattributed.push(`host ${h} ${path.basename(dir)}: ${loaded.has(dir) ? "loaded" : "refused"} with ${JSON.stringify(mine).slice(0, 600)}; manifest ${fs.readFileSync(path.join(dir, ".claude-plugin", "plugin.json"), "utf8").slice(0, 300)}`);
  }
  for (const p of problems.filter((p) => p.file === configFile && p.severity === "error")) {
    if (p.path === undefined && !/JSON|parse|empty|Unexpected/i.test(p.message)) tally.unattributed.push(`host ${h} config: ${JSON.stringify(p)}`);
  }
}

describe(`fuzz: ${HOSTS * PER_HOST} mutated manifests (seed ${SEED})`, () => {
  it("nothing crashes; each refused plugin gets a problem naming its file and field; the good plugin always loads", async () => {
    const r = rng(SEED);
    const tally: Tally = { manifests: 0, configs: 0, loaded: 0, refused: 0, unattributed: [], crashes: [] };
    for (let h = 0; h < HOSTS; h++) await oneHost(h, r, tally);
    console.log(`fuzz-manifests seed ${SEED}: ${tally.manifests} manifests and ${tally.configs} mutated configs; ${tally.loaded} loaded, ${tally.refused} refused; ${tally.crashes.length} crashes; ${tally.unattributed.length} unattributed`);
    expect(tally.crashes).toEqual([]);
    expect(tally.unattributed.slice(0, 5)).toEqual([]);
    expect(tally.refused).toBeGreaterThan(tally.manifests / 4);
  }, 600_000);
});
