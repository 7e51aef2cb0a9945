/** The last stderr lines of a stdio MCP server (banners, stack traces), for error messages. */

const STDERR_LINES = 40;
const STDERR_BYTES = 8192;

export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  add(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const parts = text.split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    if (this.partial.length > STDERR_BYTES) this.partial = this.partial.slice(-STDERR_BYTES);
    for (const p of parts) if (p.trim()) this.lines.push(p.length > 1000 ? p.slice(0, 1000) + "…" : p);
    if (this.lines.length > STDERR_LINES) this.lines.splice(0, this.lines.length - STDERR_LINES);
  }

  tail(n = 12): string {
    return [...this.lines, ...(this.partial ? [this.partial] : [])].slice(-n).join("\n");
  }
}
