import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, resultText, type ExecuteOutcome } from "../../core/index.ts";

export type Host = Awaited<ReturnType<typeof createHost>>;

export function tmpDir(prefix = "th-builtin-"): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export async function hostIn(cwd: string): Promise<Host> {
  return createHost({ cwd });
}

export interface Ran {
  text: string;
  o: ExecuteOutcome;
  isError: boolean;
}

export async function run(host: Host, name: string, input: unknown, sessionId?: string): Promise<Ran> {
  const o = await host.execute(name, input, { yes: true, sessionId, autoLoadDeferred: true });
  // the shaping plugin (when present) prefixes file reads with a `[<path> | trusted]` header block:
  // tests look at the tool's own text
  const own = { ...o.result, content: o.result.content.filter((c) => !(c.type === "text" && /^\[.* \| (un)?trusted[^\]]*\]$/.test(c.text ?? ""))) };
  return { o, text: resultText(own), isError: !!o.result.isError };
}

export function write(dir: string, rel: string, content: string | Buffer): string {
  const f = path.join(dir, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, content);
  return f;
}
