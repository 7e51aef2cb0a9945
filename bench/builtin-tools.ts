/**
 * Built-in tools benchmark: `node bench/run.mjs builtin-tools [files=50000]`.
 * Grep and Glob on a generated tree against `grep -r` / `find` on the same tree in the same run,
 * Read of a 50 MB file paged (first, middle, last page) against `sed -n`, and the Grep auto-expansion
 * trade-off. Calls go through a real host (`host.execute`), so the whole pipeline is included.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHost, resultText } from "../core/index.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Measure {
  wall: number;
  /** CPU time (user + system): ours from process.cpuUsage, the baseline's from the shell's `times`. */
  cpu: number;
}

/**
 * Median wall and CPU time of `fn` over `reps` runs. When fn returns a number it is the CPU time of
 * child processes (a shell baseline); otherwise this process's CPU time is measured. CPU time is the
 * steadier figure on a loaded machine.
 */
async function time(fn: () => unknown, reps = 3): Promise<Measure> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < reps; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push(typeof r === "number" ? r : (c.user + c.system) / 1000);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/** Run a shell baseline, discarding its output; returns its children's CPU time in ms. */
function shc(cmd: string, cwd: string): number {
  const out = sh(`( ${cmd} ) > /dev/null 2>&1; times`, cwd).trim().split("\n");
  const parse = (s: string) => {
    const m = /(\d+)m([\d.]+)s/.exec(s);
    return m ? (Number(m[1]) * 60 + Number(m[2])) * 1000 : 0;
  };
  const [u, sys] = (out[out.length - 1] ?? "").split(/\s+/);
  return parse(u ?? "") + parse(sys ?? "");
}

function sh(cmd: string, cwd: string): string {
  const r = spawnSync("/bin/sh", ["-c", cmd], { cwd, encoding: "utf8", maxBuffer: 1 << 30 });
  return r.stdout;
}

function generateTree(root: string, files: number): void {
  const words = ["alpha", "beta", "gamma", "delta", "render", "config", "request", "handler", "value", "index"];
  const exts = [".ts", ".js", ".py", ".md", ".go", ".rs"];
  const perDir = 50;
  let n = 0;
  for (let a = 0; n < files; a++) {
    for (let b = 0; b < 20 && n < files; b++) {
      const dir = path.join(root, `pkg${a}`, `mod${b}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let c = 0; c < perDir && n < files; c++, n++) {
        const lines: string[] = [];
        for (let l = 0; l < 30; l++) lines.push(`${words[(n + l) % 10]} ${words[(n * 7 + l) % 10]} = ${n * 31 + l}; // line ${l}`);
        if (n % 100 === 7) lines.push(`export function needle_${n}() { return ${n}; }`);
        if (n === 12345) lines.push("UNIQUE_MARKER_FOR_EXPANSION here");
        fs.writeFileSync(path.join(dir, `file${c}${exts[n % exts.length]}`), lines.join("\n") + "\n");
      }
    }
  }
  fs.writeFileSync(path.join(root, ".gitignore"), "*.tmp\n");
}

function generateBigFile(file: string, bytes: number): number {
  const fd = fs.openSync(file, "w");
  let written = 0;
  let line = 0;
  while (written < bytes) {
    const chunk: string[] = [];
    for (let i = 0; i < 10_000; i++) chunk.push(`${++line} the quick brown fox jumps over the lazy dog ${line * 7}`);
    const s = chunk.join("\n") + "\n";
    fs.writeSync(fd, s);
    written += Buffer.byteLength(s);
  }
  fs.closeSync(fd);
  return line;
}

export default async function main(args: string[]): Promise<void> {
  const files = Number(args[0] ?? 50_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "th-bench-builtins-"));
  const tree = path.join(tmp, "tree");
  try {
    let t0 = performance.now();
    generateTree(tree, files);
    console.log(`generated ${files} files in ${((performance.now() - t0) / 1000).toFixed(1)} s (${tree})`);
    // warm the page cache for both sides
    sh("grep -rl zzzz_nothing . > /dev/null", tree);

    const host = await createHost({ cwd: tree });
    const call = async (name: string, input: unknown) => {
      const o = await host.execute(name, input, { yes: true });
      if (o.result.isError) throw new Error(`${name} failed: ${resultText(o.result)}`);
      return o;
    };
    const rows: Array<[string, Measure, Measure, string]> = [];
    const row = (label: string, ours: Measure, base: Measure, check: string) => rows.push([label, ours, base, check]);

    // Grep: rare pattern, files_with_matches
    {
      const ours = await time(() => call("Grep", { pattern: "needle_\\d+", head_limit: 0 }));
      const defaults = await time(() => call("Grep", { pattern: "needle_\\d+" }));
      row("Grep files_with_matches (default head_limit 250)", defaults, await time(() => shc("grep -rlE 'needle_[0-9]+' . | head -250", tree)), "");
      const base = await time(() => shc("grep -rlE 'needle_[0-9]+' .", tree));
      const o = await call("Grep", { pattern: "needle_\\d+", head_limit: 0 });
      const a = (o.result.meta as { numFiles: number }).numFiles;
      const b = sh("grep -rlE 'needle_[0-9]+' .", tree).trim().split("\n").length;
      row("Grep files_with_matches (rare, 1% of files)", ours, base, `${a} vs ${b} files`);
    }
    // Grep: a plain literal (identifier lookup) takes the byte-search shortcut
    {
      const ours = await time(() => call("Grep", { pattern: "UNIQUE_MARKER_FOR_EXPANSION" }));
      const base = await time(() => shc("grep -rlF UNIQUE_MARKER_FOR_EXPANSION .", tree));
      row("Grep literal identifier (1 file, auto-expanded)", ours, base, "");
    }
    // Grep: content mode, frequent pattern, no head limit
    {
      const ours = await time(() => call("Grep", { pattern: "line 29$", output_mode: "content", head_limit: 0 }));
      const base = await time(() => shc("grep -rn 'line 29$' . > /dev/null", tree));
      const o = await call("Grep", { pattern: "line 29$", output_mode: "content", head_limit: 0 });
      row("Grep content (1 line in every file, no limit)", ours, base, `${(o.result.meta as { numLines: number }).numLines} vs ${sh("grep -rn 'line 29$' . | wc -l", tree).trim()} lines`);
    }
    // Grep: content mode with the default head_limit (what a model gets by default)
    {
      const ours = await time(() => call("Grep", { pattern: "line 29$", output_mode: "content" }));
      const base = await time(() => shc("grep -rn 'line 29$' . | head -250", tree));
      row("Grep content (default head_limit 250)", ours, base, "");
    }
    // Grep: count, case-insensitive, type filter
    {
      const ours = await time(() => call("Grep", { pattern: "RENDER", "-i": true, type: "ts", output_mode: "count", head_limit: 0 }));
      const base = await time(() => shc("grep -rci --include='*.ts' render . | grep -v ':0$' | wc -l", tree));
      row("Grep count -i type=ts", ours, base, "");
    }
    // Glob
    {
      const ours = await time(() => call("Glob", { pattern: "**/*.ts" }));
      // fair baseline: find + newest-first sort + first 100, like Glob's output
      const base = await time(() => shc("find . -name '*.ts' -type f -printf '%T@ %p\\n' | sort -rn | head -100 > /dev/null", tree));
      const o = await call("Glob", { pattern: "**/*.ts" });
      row("Glob **/*.ts (vs find | sort by mtime | head)", ours, base, `${(o.result.meta as { numFiles: number }).numFiles} vs ${sh("find . -name '*.ts' -type f | wc -l", tree).trim()} files`);
    }
    {
      const ours = await time(() => call("Glob", { pattern: "pkg1/**/file1.*" }));
      const base = await time(() => shc("find pkg1 -name 'file1.*' -type f -printf '%T@ %p\\n' | sort -rn | head -100 > /dev/null", tree));
      row("Glob pkg1/**/file1.* (static prefix)", ours, base, "");
    }

    // Read of a 50 MB file
    const big = path.join(tmp, "big.txt");
    const lines = generateBigFile(big, 50 * 1024 * 1024);
    const size = fs.statSync(big).size;
    sh(`cat ${big} > /dev/null`, tmp);
    for (const [label, offset] of [
      ["first", 1],
      ["middle", Math.floor(lines / 2)],
      ["last", lines - 1999],
    ] as const) {
      const ours = await time(() => call("Read", { file_path: big, offset, limit: 2000 }));
      const base = await time(() => shc(`sed -n '${offset},${offset + 1999}p;${offset + 1999}q' ${big} | wc -l`, tmp));
      row(`Read 50 MB, ${label} page (offset ${offset})`, ours, base, "");
    }
    console.log(`\n50 MB file: ${(size / 1024 / 1024).toFixed(1)} MiB, ${lines} lines\n`);

    // Auto-expansion trade-off: a query that hits 1 file
    {
      const one = await call("Grep", { pattern: "UNIQUE_MARKER_FOR_EXPANSION" });
      const withExp = resultText(one.result).length;
      const expanded = (one.result.meta as { expanded?: boolean }).expanded;
      const tFiles = await time(() => call("Grep", { pattern: "UNIQUE_MARKER_FOR_EXPANSION" }), 5);
      const tContent = await time(() => call("Grep", { pattern: "UNIQUE_MARKER_FOR_EXPANSION", output_mode: "content", "-C": 2 }), 5);
      const contentLen = resultText((await call("Grep", { pattern: "UNIQUE_MARKER_FOR_EXPANSION", output_mode: "content", "-C": 2 })).result).length;
      console.log(
        `auto-expansion (1 matching file in ${files}): expanded=${expanded}, result ${withExp} chars (the follow-up content call alone returns ${contentLen} chars);\n` +
          `  the follow-up call it saves costs ${tContent.wall.toFixed(0)} ms of search (+ one model round trip), the expansion itself costs ~0 ms extra (search ${tFiles.wall.toFixed(0)} ms either way).\n`,
      );
    }
    await host.close();

    // Auto-expansion on a real repository (this one): how often it triggers and what it adds
    {
      const repo = path.resolve(import.meta.dirname, "..");
      const h = await createHost({ cwd: repo });
      const queries = ["defineTool", "createHost", "stableStringify", "HeadTail", "PLUGIN_NAME", "TOOL_MARK", "resolveInside", "didYouMean", "raceAbort", "looksBinary", "normalizeResult", "failClosed"];
      let triggered = 0;
      let extra = 0;
      let savedMs = 0;
      for (const q of queries) {
        const o = await h.execute("Grep", { pattern: q }, { yes: true });
        const meta = o.result.meta as { expanded?: boolean };
        if (!meta.expanded) continue;
        triggered++;
        const text = resultText(o.result);
        extra += text.length - text.indexOf("\n\nMatching lines");
        savedMs += (await time(() => h.execute("Grep", { pattern: q, output_mode: "content", "-C": 2 }, { yes: true }), 1)).wall;
      }
      await h.close();
      const avg = triggered ? Math.round(extra / triggered) : 0;
      console.log(
        `auto-expansion on this repository: ${triggered}/${queries.length} identifier queries expanded; +${avg} chars (~${Math.round(avg / 4)} tokens) per expanded result on average, ` +
          `each saving a follow-up content call (${triggered ? (savedMs / triggered).toFixed(0) : 0} ms of search + one model round trip).\n`,
      );
    }

    console.log(`${"case".padEnd(48)} ${"wall: toolhost".padStart(14)} ${"baseline".padStart(9)} ${"ratio".padStart(6)}   ${"cpu: toolhost".padStart(13)} ${"baseline".padStart(9)} ${"ratio".padStart(6)}  check`);
    const f = (n: number) => `${n.toFixed(0).padStart(6)} ms`;
    for (const [label, ours, base, check] of rows)
      console.log(
        `${label.padEnd(48)} ${f(ours.wall).padStart(14)} ${f(base.wall)} ${(ours.wall / base.wall).toFixed(2).padStart(5)}x   ${f(ours.cpu).padStart(13)} ${f(base.cpu)} ${(ours.cpu / Math.max(1, base.cpu)).toFixed(2).padStart(5)}x  ${check}`,
      );
    console.log("\nbaselines: grep -r / find / sed -n on the same files, same run (median of 3). ratio = toolhost / baseline; cpu = user+system time.");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
