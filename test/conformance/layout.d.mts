/** Types of layout.mjs (shared with the recorder, which runs as plain Node). */
export interface Layout {
  root: string;
  project: string;
  home: string;
  hookLog: string;
  hookDir: string;
  node: string;
  plugins: string[];
  toolhostHome?: string;
  /** The managed settings folder (managed-settings.json when the case has `settings.managed` or managed hooks). */
  managedDir: string;
  /** The --settings file, when the case has one. */
  cliSettings?: string;
}
export const HERE: string;
export const REPO: string;
export const PLUGIN_FIXTURES: string;
export const RECORDINGS: string;
export function stepId(i: number): string;
export function substitute<T>(v: T, L: Layout): T;
export function recorderCommand(L: Layout, spec: { label: string; respond?: unknown }): string;
export function settingsFor(c: object, L: Layout): Record<string, Record<string, unknown>>;
export function buildLayout(root: string, c: object, node?: string): Layout;
export function snapshot(dir: string): Record<string, string>;
export function fileChanges(before: Record<string, string>, after: Record<string, string>): Record<string, string | null>;
export function readHookLog(L: Layout, baseEnv: Record<string, string | undefined>): { label: string; event: string | null; stdin: any; env: Record<string, string> }[];
export function scrub<T>(obs: T, L: Layout): T;
export function resultText(content: unknown): string;
export function loadRecording(id: string): any;
