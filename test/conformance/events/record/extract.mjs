// Turns one recorded case (record/run-case.sh output) into a committed fixture with machine paths scrubbed.
// usage: node extract.mjs OUT_DIR CASE > ../CASE.json
import fs from "node:fs";
import path from "node:path";
const [outDir, name] = process.argv.slice(2);
const dir = path.join(outDir, name);
const read = (f) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), "utf8") : "");
let sessionId = "";
const scrub = (s) => {
  let t = s.split(path.join(dir, "home")).join("$HOME").split(path.join(dir, "proj")).join("$PROJECT").split(dir).join("$CASE");
  if (sessionId) t = t.split(sessionId).join("$SESSION");
  return t.split(path.dirname(outDir)).join("$ORACLE").replace(/toolu_\d+_\d+/g, "$TOOL_USE_ID").replace(/"prompt_id":"[0-9a-f-]+"/g, '"prompt_id":"$PROMPT_ID"').replace(/-tmp-[A-Za-z0-9-]+-proj/g, "$PROJECT_SLUG");
};
const hooks = {};
for (const f of fs.readdirSync(path.join(dir, "rec")).filter((f) => /-\d+\.json$/.test(f)).sort()) {
  const j = JSON.parse(fs.readFileSync(path.join(dir, "rec", f), "utf8"));
  sessionId ||= j.stdin.session_id;
  hooks[f.replace(/\.json$/, "")] = { stdin: j.stdin, envKeys: Object.keys(j.env).sort() };
}
const reqs = read("requests.jsonl").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.url.startsWith("/v1/messages") && !r.url.includes("count_tokens"));
const marks = /(SessionStart[^"\\]*hook[^"\\]*|UserPromptSubmit hook[^"\\]*|PostToolBatch hook[^"\\]*|Stop hook feedback:(?:\\+n)?[^"\\]*)/g;
const modelSaw = [...new Set(reqs.flatMap((r) => r.body.match(marks) ?? []))];
const stream = read("stream.jsonl").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
const res = stream.at(-1) ?? {};
const transcript = read("transcript.jsonl").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.type === "user" || l.type === "assistant");
const fixture = {
  case: name,
  recordedWith: "Claude Code 2.1.328 (-p, stream-json) against the scripted model of ../../../../shared/cc-oracle",
  script: JSON.parse(read("script.json")),
  behaviour: JSON.parse(read("rec/behaviour.json")),
  hooksRun: Object.keys(hooks),
  hooks,
  modelRequests: reqs.length,
  modelSaw,
  filesMade: fs.readdirSync(path.join(dir, "proj")),
  result: { terminal_reason: res.terminal_reason, result: res.result, is_error: res.is_error, exit: read("exit.txt").trim() },
  transcript: name === "basic" ? transcript : undefined,
};
process.stdout.write(scrub(JSON.stringify(fixture, null, 2)) + "\n");
