// Shared by record.mjs (against Claude Code) and test/conformance/shapes.test.ts (against toolhost): the
// recording hook and the one-tool MCP server, so both sides run the very same scripts.
export const HOOK = `import fs from "node:fs";
import { execSync } from "node:child_process";
let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const ev = process.argv[2];
  const keep = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(CLAUDE|ANTHROPIC_MODEL|PWD$|SHELL$)/.test(k) && !/API_KEY/.test(k)));
  let j = {}; try { j = JSON.parse(s); } catch {}
  fs.appendFileSync(process.env.REC_LOG, JSON.stringify({ event: ev, argv: process.argv.slice(3), stdin: j, env: keep }) + "\\n");
  const outs = JSON.parse(fs.readFileSync(process.env.REC_OUT, "utf8"));
  const o = outs.find((x) => x.event === ev && (!x.tool || x.tool === j.tool_name) && (!x.when || JSON.stringify(j.tool_input ?? {}).includes(x.when)));
  if (o?.run) execSync(o.run, { cwd: j.cwd });
  if (o?.stdout) process.stdout.write(typeof o.stdout === "string" ? o.stdout : JSON.stringify(o.stdout));
  if (o?.stderr) process.stderr.write(o.stderr);
  process.exit(o?.exit ?? 0);
});
`;

// A minimal stdio MCP server with one tool, `echo`, that returns text and structuredContent.
export const MCP = `import readline from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (l) => {
  const m = JSON.parse(l);
  if (m.method === "initialize") send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "rec", version: "1.0.0" } } });
  else if (m.method === "tools/list") send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "echo", description: "Echo text back", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] } });
  else if (m.method === "tools/call") send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "echo: " + m.params.arguments.text }], structuredContent: { echoed: m.params.arguments.text } } });
  else if (m.id !== undefined) send({ jsonrpc: "2.0", id: m.id, result: {} });
});
`;

