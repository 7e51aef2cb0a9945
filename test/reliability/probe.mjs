// Preloaded into the soaked `toolhost serve` (node --expose-gc --import): appends the process's own memory
// figures (RSS, heap used after a GC) to $SOAK_PROBE_FILE every $SOAK_PROBE_MS. No effect without the variable.
import fs from "node:fs";

const file = process.env.SOAK_PROBE_FILE;
if (file) {
  const every = Number(process.env.SOAK_PROBE_MS) || 10_000;
  const sample = () => {
    globalThis.gc?.();
    const m = process.memoryUsage();
    fs.appendFileSync(file, JSON.stringify({ t: Date.now(), rss: m.rss, heapUsed: m.heapUsed }) + "\n");
  };
  sample();
  setInterval(sample, every).unref();
}
