/**
 * The built-in tools' lifecycle plugin. The tools themselves are listed in manifests/builtin-tools.json
 * (`tools`), so the plugin-tools collector gives them origin "builtin". Tools have no dispose of their
 * own; this `main` kills the background tasks and exec sessions a host started when that host closes
 * or the plugin is reloaded.
 */
import { definePlugin } from "../../core/index.ts";
import { reap } from "./procs.ts";

const PLUGIN_NAME = "builtin-tools";

export default definePlugin({
  name: PLUGIN_NAME,
  apply(ctx) {
    ctx.onDispose(() => {
      const n = reap((p) => {
        const s = ctx.host.session(p.sessionId);
        return s.shared === p.owner || s.stateFor(p.kind === "bash" ? "Bash" : "exec_command") === p.owner;
      });
      if (n) ctx.host.log.debug(`[${PLUGIN_NAME}] killed ${n} background process(es) on close`);
    });
  },
});
