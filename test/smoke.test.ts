import { describe, expect, it } from "vitest";
import { createHost } from "../core/index.ts";

describe("smoke", () => {
  it("starts a host on the bundled plugins", async () => {
    const host = await createHost({ cwd: process.cwd() });
    expect(host.pool.generation).toBe(1);
    expect(host.pool.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    await host.close();
  });
});
