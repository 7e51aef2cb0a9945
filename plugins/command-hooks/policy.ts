/**
 * Claude Code's hook switches in settings (docs "Settings": disableAllHooks, allowManagedHooksOnly; semantics of
 * Claude Code 2.1.328, recorded: settings-disable-all-hooks*, settings-managed-hooks-only-unmanaged):
 *  - managed settings `disableAllHooks: true`: no hook runs, managed ones included;
 *  - managed settings `allowManagedHooksOnly: true`: only managed settings' hooks run (no plugin's, no other layer's);
 *  - `disableAllHooks` in another layer (the strongest that sets it: --settings, local, project, user): when true,
 *    every hook but the managed ones is off (a lower layer cannot turn managed hooks off);
 *  - `allowManagedHooksOnly` outside managed settings is ignored.
 * The claude-settings plugin passes both keys in each layer's manifest.
 */
import type { LoadedPlugin } from "../../core/index.ts";

const MANAGED = "settings:managed";
/** Non-managed layers, strongest first. */
const LAYERS = ["settings:flag", "settings:local", "settings:project", "settings:user"];

/** Why a source's hooks do not run (undefined: they run). */
export type HookPolicy = (pluginId: string) => string | undefined;

export function hookPolicy(plugins: readonly LoadedPlugin[]): HookPolicy {
  const set = (p: LoadedPlugin, key: string) => typeof p.manifest[key] === "boolean";
  const managed = plugins.filter((p) => p.id === MANAGED);
  const off = managed.find((p) => p.manifest.disableAllHooks === true);
  if (off) return () => `disableAllHooks is true in managed settings (${off.manifestFile})`;
  const only = managed.find((p) => p.manifest.allowManagedHooksOnly === true);
  if (only) return (id) => (id === MANAGED ? undefined : `allowManagedHooksOnly is true in managed settings (${only.manifestFile}): only managed settings' hooks run`);
  for (const layer of LAYERS) {
    const p = plugins.find((x) => x.id === layer && set(x, "disableAllHooks"));
    if (!p) continue;
    if (p.manifest.disableAllHooks !== true) return () => undefined;
    return (id) => (id === MANAGED ? undefined : `disableAllHooks is true in ${p.manifestFile} (only managed settings' hooks still run)`);
  }
  return () => undefined;
}
