/**
 * The CLI's commands: those the bundled plugins declare in their manifests (`cliCommands`), in the bundled
 * list's order (host-cli's tools, explain and call first) — metadata from the JSON, so help and flag parsing
 * import nothing, and the module imported only when the command runs. So core names no command and a
 * command lives with its plugin. A name taken already (the CLI's own `help`, `completion`) is skipped.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command, CommandContext } from "./context.ts";
import { BUNDLED_MANIFESTS } from "../../plugins/bundled.ts";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MANIFEST_DIR = path.join(PACKAGE_ROOT, "manifests");

/** A manifest's `cliCommands` entry: a Command's metadata, and the module whose `run(ctx)` runs it. */
interface CliCommandSpec extends Omit<Command, "usage" | "run"> {
  usage?: string;
  module: string;
}

function specsOf(file: string): CliCommandSpec[] {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(MANIFEST_DIR, file), "utf8")) as { cliCommands?: CliCommandSpec[] };
    return Array.isArray(m.cliCommands) ? m.cliCommands : [];
  } catch {
    return []; // a missing or broken manifest is reported by the host like any other
  }
}

export function pluginCommands(taken: ReadonlySet<string>): Command[] {
  const out: Command[] = [];
  for (const f of BUNDLED_MANIFESTS) {
    for (const spec of specsOf(f)) {
      if (!spec || typeof spec.name !== "string" || typeof spec.module !== "string" || taken.has(spec.name) || out.some((c) => c.name === spec.name)) continue;
      const file = path.resolve(PACKAGE_ROOT, spec.module);
      const { name, summary = "", usage = `toolhost ${name}`, values, repeat, flags, exits } = spec;
      out.push({
        name, summary, usage, values, repeat, flags, exits,
        run: async (ctx) => {
          const { importCached } = await import("../index.ts");
          const mod = (await importCached(file, { moduleCache: true, interopDefault: false })) as { run?: (c: CommandContext) => Promise<number> };
          if (typeof mod.run !== "function") throw new Error(`${file} (cliCommands "${name}" of ${f}) does not export run(ctx)`);
          return mod.run(ctx);
        },
      });
    }
  }
  return out;
}
