/**
 * Where plugins come from, in order: the bundled list (plugins/bundled.ts), config `plugins` (paths or
 * npm packages), `--plugin-dir`; then host.discover taps. The same directory named twice is one plugin.
 */
import fs from "node:fs";
import path from "node:path";
import type { ProblemReport } from "../errors.ts";
import type { HostConfig, PluginSource } from "../types.ts";
import { BUNDLED_MANIFESTS } from "../../plugins/bundled.ts";
import { PACKAGE_ROOT } from "../../lib/module-import.ts";

export const BUNDLED_DIR = path.join(PACKAGE_ROOT, "manifests");
export { BUNDLED_MANIFESTS };

/** Sort key of a bundled manifest file (its place in the list), Infinity for every other source. */
export function bundledRank(file: string | undefined): number {
  const i = file && path.dirname(file) === BUNDLED_DIR ? BUNDLED_MANIFESTS.indexOf(path.basename(file)) : -1;
  return i < 0 ? Infinity : i;
}

/**
 * `config` is the merged config; `inline` the embedder's own (createHost({ config })). The merge lists the file's
 * `plugins` first and the inline config's after them: those are resolved from the working directory with no
 * `from` — the user's, never held back as a project config's — the file's relative to the file.
 */
export function initialSources(opts: { bundled?: boolean; pluginDirs?: string[]; cwd: string }, config: HostConfig, configFile: string | undefined, problems: ProblemReport[], inline?: HostConfig): PluginSource[] {
  const sources: PluginSource[] = [];
  if (opts.bundled !== false) for (const f of BUNDLED_MANIFESTS) if (fs.existsSync(path.join(BUNDLED_DIR, f))) sources.push({ kind: "bundled", path: path.join(BUNDLED_DIR, f) });
  // An invalid config (reported elsewhere) may hold anything here: only a list of strings names plugins.
  const all = Array.isArray(config.plugins) ? config.plugins : [];
  const fromInline = Array.isArray(inline?.plugins) ? Math.min(inline.plugins.length, all.length) : 0;
  all.forEach((p, i) => {
    if (typeof p === "string") sources.push(resolvePluginRef(p, i >= all.length - fromInline ? undefined : configFile, opts.cwd, problems));
  });
  for (const d of opts.pluginDirs ?? []) sources.push({ kind: "plugin-dir", path: path.resolve(opts.cwd, d) });
  return sources;
}

export function dedupeSources(sources: PluginSource[]): PluginSource[] {
  const seen = new Set<string>();
  return sources.filter((s) => !s.path || (seen.has(path.resolve(s.path)) ? false : (seen.add(path.resolve(s.path)), true)));
}

/** A config `plugins` entry: a path (relative to the config file) or an npm package name found in node_modules. */
export function resolvePluginRef(ref: string, from: string | undefined, cwd: string, problems: ProblemReport[]): PluginSource {
  const base = from ? path.dirname(from) : cwd;
  if (ref.startsWith(".") || path.isAbsolute(ref) || ref.startsWith("~")) {
    const p = ref.startsWith("~") ? path.join(process.env.HOME ?? "", ref.slice(1)) : path.resolve(base, ref);
    return { kind: "config", path: p, from };
  }
  // An npm package name: found in node_modules by name.
  for (let d = base; ; d = path.dirname(d)) {
    const cand = path.join(d, "node_modules", ref);
    if (fs.existsSync(path.join(cand, "package.json"))) return { kind: "npm", path: cand, from };
    if (path.dirname(d) === d) break;
  }
  problems.push({ plugin: ref, file: from, path: "/plugins", message: `plugin "${ref}" is neither a path nor an installed npm package (run npm install ${ref})`, severity: "error" });
  return { kind: "npm", path: "", from };
}

