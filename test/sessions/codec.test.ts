/** The sessions plugin's codec: only changed keys become ops, deletes are found, restore round-trips. */
import { describe, expect, it } from "vitest";
import { Session } from "../../core/host/session.ts";
import { restore, Synced } from "../../plugins/sessions/codec.ts";
import { MemoryStore } from "../../lib/session-store/memory.ts";

describe("sessions codec", () => {
  it("sends only what changed, finds deleted keys, skips what is not plain JSON, and restores what it stored", async () => {
    const s = new Session("c");
    const files = new Map<string, unknown>([["/a", { size: 1 }], ["/b", { size: 2 }]]);
    s.shared.set("builtin-tools:files", files);
    s.shared.set("builtin-tools:bashCwd", "/p/sub");
    s.shared.set("proc", { kill() {} });
    s.stateFor("Bash").set("n", 3);
    s.load(["mcp__x__y"]);
    const synced = new Synced();
    const first = synced.changes(s);
    expect(first.ops.map((o) => `${o.op} ${o.field} ${"key" in o ? o.key : ""}`).sort()).toEqual(["set loaded mcp__x__y", "set shared builtin-tools:bashCwd", "set shared:builtin-tools:files /a", "set shared:builtin-tools:files /b", "set state:Bash n"]);
    first.commit();
    expect(synced.changes(s).ops).toEqual([]);
    files.set("/b", { size: 2 }); // a new object with the same text: no op
    expect(synced.changes(s).ops).toEqual([]);
    files.set("/c", { size: 3 });
    files.delete("/a");
    s.shared.delete("builtin-tools:bashCwd");
    const d = synced.changes(s);
    const sorted = (ops: unknown[]) => ops.map((o) => JSON.stringify(o)).sort();
    expect(sorted(d.ops)).toEqual(
      sorted([
        { op: "set", field: "shared:builtin-tools:files", key: "/c", value: { size: 3 } },
        { op: "delete", field: "shared", key: "builtin-tools:bashCwd" },
        { op: "delete", field: "shared:builtin-tools:files", key: "/a" },
      ]),
    );
    expect(d.ops).toHaveLength(3);
    const store = new MemoryStore();
    await store.patch("c", first.ops);
    await store.patch("c", d.ops);
    d.commit();
    const back = new Session("c");
    const again = restore(back, (await store.get("c"))!);
    expect(back.loaded).toEqual(["mcp__x__y"]);
    expect([...(back.shared.get("builtin-tools:files") as Map<string, unknown>)]).toEqual([["/b", { size: 2 }], ["/c", { size: 3 }]]);
    expect(back.shared.has("builtin-tools:bashCwd")).toBe(false);
    expect(back.shared.has("proc")).toBe(false);
    expect(back.stateFor("Bash").get("n")).toBe(3);
    expect(again.changes(back).ops).toEqual([]);
  });
});
