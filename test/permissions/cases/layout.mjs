/**
 * The adversarial corpus's shared pieces: loading the cases (./*.jsonl, one JSON object a line) and building a
 * case's scratch layout. Used by adversarial-corpus.test.ts, bench/permissions-corpus.ts and record-cc.mjs, so
 * toolhost and Claude Code see the same files.
 *
 * A scratch root holds `project/` (the cwd), `outside/` (a directory beside it) and `home/` (a HOME for Claude
 * Code). `{{cwd}}`, `{{out}}` and `{{home}}` in a case's input, settings and files stand for their absolute paths.
 * A case's `files` adds to the base layout: `"path": "text"` or `"path": {"symlink": "target"}`.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export const BASE_FILES = {
  "README.md": "# readme\n",
  ".env": "SECRET=1\n",
  "sub/.env": "S=2\n",
  "src/a.ts": "export const a = 1;\n",
  "src/b.ts": "export const b = 2;\n",
  "secrets/key": "k\n",
  "build/out.txt": "o\n",
  "docs/guide.md": "guide\n",
  ".git/config": "[core]\n",
  "link-out": { symlink: "{{out}}/secret.txt" },
  "link-outdir": { symlink: "{{out}}" },
  "link-env": { symlink: ".env" },
  "link-ssh": { symlink: "{{home}}/.ssh" },
  "dangling": { symlink: "secrets/new.txt" },
  "dangling-out": { symlink: "{{out}}/new.txt" },
};
export const OUTSIDE_FILES = { "secret.txt": "outside-secret\n", "x.txt": "x\n" };
export const HOME_FILES = { ".ssh/id_rsa": "PRIVATE\n", ".bashrc": "# rc\n" };

export const CATEGORIES_ORDER = [];

/** All cases, in file order. Each: {id, category, settings?, mode?, tool, input, files?, intended, source, live?, effect?, note?}. */
export function loadCases(dir = here) {
  const out = [];
  const seen = new Set();
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()) {
    const lines = fs.readFileSync(path.join(dir, f), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (!line.trim() || line.startsWith("//")) return;
      let c;
      try { c = JSON.parse(line); } catch (e) { throw new Error(`${f}:${i + 1}: ${e.message}`); }
      if (seen.has(c.id)) throw new Error(`${f}:${i + 1}: duplicate id ${c.id}`);
      seen.add(c.id);
      out.push({ file: f, line: i + 1, mode: "default", settings: {}, ...c });
    });
  }
  return out;
}

export function substitute(v, L) {
  if (typeof v === "string") return v.replaceAll("{{cwd}}", L.project).replaceAll("{{out}}", L.outside).replaceAll("{{home}}", L.home);
  if (Array.isArray(v)) return v.map((x) => substitute(x, L));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, L)]));
  return v;
}

function write(dir, files, L) {
  for (const [rel, spec] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.rmSync(p, { force: true, recursive: true });
    if (spec && typeof spec === "object") fs.symlinkSync(substitute(spec.symlink, L), p);
    else fs.writeFileSync(p, substitute(String(spec), L));
  }
}

/** Build the layout under `root` (an empty real directory); settings go to project/.claude/settings.json. */
export function layout(root, files = {}, settings = {}) {
  const L = { root, project: path.join(root, "project"), outside: path.join(root, "outside"), home: path.join(root, "home") };
  for (const d of [L.project, L.outside, L.home]) fs.mkdirSync(d, { recursive: true });
  write(L.outside, OUTSIDE_FILES, L);
  write(L.home, HOME_FILES, L);
  write(L.project, BASE_FILES, L);
  write(L.project, files, L);
  fs.mkdirSync(path.join(L.project, ".claude"), { recursive: true });
  fs.writeFileSync(path.join(L.project, ".claude", "settings.json"), JSON.stringify({ permissions: substitute(settings, L) }, null, 1));
  return L;
}
