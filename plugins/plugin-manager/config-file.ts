/**
 * The project's toolhost config file, edited in place for `toolhost plugin add|remove`: a JSON file
 * (toolhost.config.json, .toolhostrc.json, .toolhostrc) or package.json's `toolhost` key. A JS/TS/YAML config
 * cannot be rewritten safely: the error says what to add by hand.
 */
import fs from "node:fs";
import path from "node:path";
import { UsageError } from "../../core/index.ts";

const JSON_PLACES = ["toolhost.config.json", ".toolhostrc.json", ".toolhostrc"];
const OTHER_PLACES = [".toolhostrc.js", ".toolhostrc.mjs", ".toolhostrc.ts", "toolhost.config.js", "toolhost.config.mjs", "toolhost.config.ts"];

export interface ConfigFile {
  file: string;
  /** The `plugins` list as written. */
  plugins(): string[];
  /** Replace the `plugins` list and write the file (atomically: temp file + rename). */
  write(plugins: string[]): void;
}

function atomicWrite(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

function readJson(file: string): Record<string, unknown> {
  try {
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON (${(e as Error).message}); fix it first`);
  }
  throw new UsageError(`${file} must hold a JSON object`);
}

const listOf = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The config file of `cwd` to edit (found as cosmiconfig would), or a new toolhost.config.json. */
export function configFile(cwd: string, explicit?: string): ConfigFile {
  const pkg = path.join(cwd, "package.json");
  const found = explicit ? path.resolve(cwd, explicit) : [...JSON_PLACES, ...OTHER_PLACES].map((f) => path.join(cwd, f)).find((f) => fs.existsSync(f));
  const usePkg = !found && !explicit && fs.existsSync(pkg) && "toolhost" in readJson(pkg);
  if (usePkg) {
    return {
      file: pkg,
      plugins: () => listOf((readJson(pkg).toolhost as Record<string, unknown> | undefined)?.plugins),
      write: (plugins) => {
        const all = readJson(pkg);
        all.toolhost = { ...(all.toolhost as object), plugins };
        atomicWrite(pkg, JSON.stringify(all, null, 2) + "\n");
      },
    };
  }
  const file = found ?? path.join(cwd, "toolhost.config.json");
  if (!/\.json$|\.toolhostrc$/.test(file)) throw new UsageError(`${file} is code, not JSON, so toolhost cannot edit it: add the plugin to its "plugins" list by hand`);
  return {
    file,
    plugins: () => (fs.existsSync(file) ? listOf(readJson(file).plugins) : []),
    write: (plugins) => {
      const all = fs.existsSync(file) ? readJson(file) : {};
      atomicWrite(file, JSON.stringify({ ...all, plugins }, null, 2) + "\n");
    },
  };
}
