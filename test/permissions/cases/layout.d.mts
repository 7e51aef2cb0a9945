export interface CorpusCase {
  id: string;
  category: string;
  settings: { allow?: string[]; ask?: string[]; deny?: string[]; additionalDirectories?: string[] };
  mode: string;
  tool: string;
  input: Record<string, unknown>;
  files?: Record<string, string | { symlink: string }>;
  intended: "allow" | "ask" | "deny";
  source: string;
  live?: boolean;
  /** gone: the path no longer exists; made: it exists; changed: the file's content is not what it was before the call. */
  effect?: { gone?: string; made?: string; changed?: string };
  note?: string;
  /** Why the intended decision is stricter than Claude Code's on purpose (shown in the README's table). */
  why?: string;
  file: string;
  line: number;
}
export interface Layout { root: string; project: string; outside: string; home: string }
export function loadCases(dir?: string): CorpusCase[];
export function substitute<T>(v: T, L: Layout): T;
export function layout(root: string, files?: CorpusCase["files"], settings?: CorpusCase["settings"]): Layout;
