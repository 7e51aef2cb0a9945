/** Shared by the lsp tests: a stand-in Edit tool and /proc process inspection. */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineTool, definePlugin, resultText, type Host } from "../../core/index.ts";

/** Until the built-in tools land: a minimal Edit with Claude Code's input shape. */
export const editPlugin = definePlugin({
  name: "test-edit",
  apply(ctx) {
    ctx.hooks.build.tap("test-edit", (build) => {
      build.hooks.collect.tap("test-edit", (c) =>
        c.add({
          ...defineTool<{ file_path: string; old_string: string; new_string: string }>({
            name: "Edit",
            description: "Replace old_string with new_string in file_path",
            inputSchema: {
              type: "object",
              properties: { file_path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } },
              required: ["file_path", "old_string", "new_string"],
            },
            call(input) {
              const f = path.resolve(build.cwd, input.file_path);
              const text = fs.readFileSync(f, "utf8");
              if (!text.includes(input.old_string)) return { content: [{ type: "text", text: "old_string not found" }], isError: true };
              fs.writeFileSync(f, text.replace(input.old_string, input.new_string));
              return `Edited ${input.file_path}`;
            },
          }),
          origin: "plugin",
          plugin: "test-edit",
        }),
      );
    });
  },
});

/** Processes whose parent is `ppid` (Linux /proc), with their command lines. */
export function children(ppid: number): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === ppid && fields[0] !== "Z") out.push({ pid: Number(d), cmd: fs.readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ") });
    } catch {}
  }
  return out;
}

export { alive } from "../helpers.ts";


/** The small test language server (a real process): see fixtures/fake-lsp.mjs. */
export const FAKE_LSP = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "fake-lsp.mjs");

/**
 * Write a plugin directory whose `.lsp.json` runs the fake server for `ext` — the cheapest way to
 * get an `lsp`-origin tool (the LSP tool) into a host, e.g. for a contract test over every tool source.
 */
export function fakeLspPlugin(dir: string, ext = ".fake", extra: Record<string, unknown> = {}, name = "fake-lsp"): string {
  fs.mkdirSync(path.join(dir, ".claude-plugin"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".claude-plugin", "plugin.json"), JSON.stringify({ name }));
  fs.writeFileSync(path.join(dir, ".lsp.json"), JSON.stringify({ fake: { command: process.execPath, args: [FAKE_LSP], extensionToLanguage: { [ext]: "fake" }, ...extra } }, null, 2));
  return dir;
}

/** Edit through the host; when the built-in Edit (read-before-write) wins the name, Read the file first. */
export async function editFile(host: Host, file: string, old_string: string, new_string: string) {
  if (host.pool.byName.get("Edit")?.plugin !== "test-edit" && host.pool.byName.has("Read")) await host.execute("Read", { file_path: file }, { yes: true });
  const o = await host.execute("Edit", { file_path: file, old_string, new_string }, { yes: true });
  return { ...o, text: resultText(o.result) };
}
