import path from "node:path";
import { tmpdir, write as writeFile } from "../helpers.ts";
import { createHost, resultText, type ExecuteOutcome } from "../../core/index.ts";

export type Host = Awaited<ReturnType<typeof createHost>>;

export function tmpDir(prefix = "th-builtin-"): string {
  return tmpdir(prefix);
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
  return writeFile(path.join(dir, rel), content);
}
