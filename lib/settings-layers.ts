/**
 * Claude Code's settings layers as toolhost pseudo-plugin ids, lowest precedence first (Claude Code: user →
 * project → local → `--settings` → managed; the toolhost config sits below them all). Lists (permission
 * rules, hooks) merge across layers; where one value must win (a hook rewrite conflict, the mode) the
 * later layer here wins. Shared by the plugins that order sources (claude-settings, command-hooks).
 */
export const SETTINGS_LAYERS = ["config", "settings:user", "settings:project", "settings:local", "settings:flag", "settings:managed"] as const;
export type SettingsLayer = (typeof SETTINGS_LAYERS)[number];

/** Rank of a source id in composition order; any other source (a plugin) after every layer. */
export function layerRank(id: string): number {
  const i = (SETTINGS_LAYERS as readonly string[]).indexOf(id);
  return i < 0 ? SETTINGS_LAYERS.length : i;
}
