/**
 * Collects tools from every plugin's manifest `tools` modules (TS/JS, loaded with jiti).
 * A module's default export and named exports that are tools (defineTool or plain objects with
 * name/description/inputSchema/call) all count; arrays of tools too. A plugin's modules are
 * re-imported fresh (no module cache) whenever a file in its directory changed, so an edited tool
 * module — or a file it imports from its plugin — really runs; unchanged plugins reuse the modules
 * they loaded (diff, don't restart: a no-change rebuild does not re-evaluate every module).
 */
import fs from "node:fs";
import { codeStamp, definePlugin, importCached, isToolDefinition, errorMessage, type Tool, type ToolDefinition } from "../../core/index.ts";

const PLUGIN_NAME = "plugin-tools";

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    /** Loaded modules by file, with the code stamp of their plugin directory when they were imported. */
    let modules = new Map<string, { stamp: string; mod: Record<string, unknown> }>();
    ctx.hooks.build.tap(PLUGIN_NAME, (build) => {
      build.hooks.collect.tapPromise(PLUGIN_NAME, async (collector) => {
        const next = new Map<string, { stamp: string; mod: Record<string, unknown> }>();
        for (const lp of build.plugins) {
          const stamp = lp.components.tools.length ? (lp.source.kind === "bundled" ? "bundled" : codeStamp(lp.root)) : "";
          for (const comp of lp.components.tools) {
            const bundled = lp.source.kind === "bundled";
            let mod: Record<string, unknown>;
            try {
              const hit = modules.get(comp.file);
              if (hit && hit.stamp === stamp) mod = hit.mod;
              // An empty module is a file being written (an editor truncates, then writes): not "no tools" — keep the last good pool.
              else if (!fs.statSync(comp.file).size) throw new Error("the file is empty (being written?)");
              // Not bundled: .mjs/.cjs/.js modules and what they import from the plugin are evaluated afresh too.
              else mod = (await importCached(comp.file, { moduleCache: bundled, interopDefault: false }, bundled ? undefined : lp.root)) as Record<string, unknown>;
              next.set(comp.file, { stamp, mod });
            } catch (e) {
              collector.problem({ plugin: lp.id, file: comp.file, path: comp.jsonPath, message: `cannot load tool module: ${errorMessage(e)}`, severity: "error" });
              continue;
            }
            const found: ToolDefinition[] = [];
            for (const [key, v] of Object.entries(mod ?? {})) {
              for (const c of Array.isArray(v) ? v : [v]) {
                if (isToolDefinition(c)) found.push(c);
                else if (key === "default" && c && typeof c === "object" && !Array.isArray(c)) {
                  collector.problem({ plugin: lp.id, file: comp.file, path: `${comp.jsonPath} (export ${key})`, message: "default export is not a tool: expected defineTool({ name, description, inputSchema, call })", severity: "warning" });
                }
              }
            }
            if (!found.length) collector.problem({ plugin: lp.id, file: comp.file, path: comp.jsonPath, message: "module exports no tools (use defineTool from toolhost)", severity: "warning" });
            const seen = new Set<ToolDefinition>();
            for (const def of found) {
              if (seen.has(def)) continue;
              seen.add(def);
              const origin = bundled ? "builtin" : "plugin";
              collector.add({ ...def, origin, plugin: lp.id, file: comp.file } as Tool);
            }
          }
        }
        modules = next;
      });
    });
  },
});
