/**
 * Commands the bundled plugins declare in their manifests (`cliCommands`): metadata from the JSON, the
 * module imported only when the command runs. So core names no plugin and a plugin's command lives with
 * its plugin. A name core already has is skipped (core's commands are the contract).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command, CommandContext } from "./context.ts";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUNDLED_MANIFESTS = path.join(PACKAGE_ROOT, "manifests");

interface CliCommandSpec {
  name: string;
  summary: string;
  usage?: string;
  values?: string[];
  repeat?: string[];
  flags?: Record<string, string>;
  exits?: Record<string, string>;
  module: string;
}

function specsOf(file: string): CliCommandSpec[] {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(BUNDLED_MANIFESTS, file), "utf8")) as { cliCommands?: CliCommandSpec[] };
    return Array.isArray(m.cliCommands) ? m.cliCommands : [];
  } catch {
    return []; // a broken manifest is reported by the host like any other
  }
}

export function pluginCommands(taken: ReadonlySet<string>): Command[] {
  const out: Command[] = [];
  let files: string[] = [];
  try {
    files = fs.readdirSync(BUNDLED_MANIFESTS).filter((f) => f.endsWith(".json")).sort();
  } catch {
    return out;
  }
  for (const f of files) {
    for (const spec of specsOf(f)) {
      if (!spec || typeof spec.name !== "string" || typeof spec.module !== "string" || taken.has(spec.name) || out.some((c) => c.name === spec.name)) continue;
      const file = path.resolve(PACKAGE_ROOT, spec.module);
      const { name, summary = "", usage = `toolhost ${name}`, values, repeat, flags, exits } = spec;
      out.push({
        name, summary, usage, values, repeat, flags, exits,
        run: async (ctx) => {
          const mod = (await import(file)) as { run?: (c: CommandContext) => Promise<number> };
          if (typeof mod.run !== "function") throw new Error(`${file} (cliCommands "${name}" of ${f}) does not export run(ctx)`);
          return mod.run(ctx);
        },
      });
    }
  }
  return out;
}
