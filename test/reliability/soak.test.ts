/**
 * The short soak (issue 12, "What to build" item 2; the long one is `node bench/run.mjs soak`): a real
 * `toolhost serve --http` child with a real MCP server (server-everything), a plugin tool module and a command
 * hook; three MCP SDK clients make a few thousand calls while the config is rewritten every 0.5–1 s, and
 * every fifth rewrite a fault is injected (a broken config, a broken tool module, the MCP server killed).
 * Then a Bash call with 1.29 M characters of output is checked against its spill file, and the server is
 * killed with SIGKILL in the middle of a burst of calls. See test/reliability/helpers.ts.
 */
import { describe, expect, it } from "vitest";
import { formatReport, runSoak, type SoakReport } from "./helpers.ts";

const CALLS = Number(process.env.SOAK_CALLS) || 2000;

describe("reliability: the short soak over serve --http", () => {
  let r: SoakReport;
  it(`${CALLS} calls from 3 clients with rebuilds and faults: no error, no wrong answer`, async () => {
    r = await runSoak({ clients: 3, calls: CALLS, durationMs: 120_000, reloadMs: [500, 1000], bucketMs: 10_000, faultEvery: 5, minFaults: 3 });
    console.log(formatReport(r, "10 s").join("\n"));
    expect(r.calls).toBeGreaterThanOrEqual(Math.min(CALLS, 500));
    expect(r.errorSamples).toEqual([]);
    expect(r.errors).toBe(0);
    expect(r.wrong).toBe(0);
  }, 300_000);

  it("every injected fault was noticed and survived (a failed rebuild naming the file, or the server back)", () => {
    expect(r.faults.length).toBeGreaterThanOrEqual(3);
    expect(r.faults.filter((f) => !f.survived)).toEqual([]);
    // A call in flight on the killed server is answered with an error saying so, never left hanging or lost.
    expect(r.faultErrors).toBeLessThanOrEqual(r.faults.filter((f) => f.kind === "MCP server killed").length * r.clients);
  });

  it("every client got one list_changed per pool change", () => {
    expect(r.poolChanges).toBeGreaterThan(5);
    expect(r.listChanged).toEqual(r.listChanged.map(() => r.poolChanges));
  });

  it("the transcript has every call exactly once, in order per session, one session per client", () => {
    expect(r.transcript).toMatchObject({ invalid: 0, missing: 0, duplicates: 0, outOfOrder: 0, sessions: r.clients });
  });

  it("after kill -9 mid-burst the transcript is valid JSONL with every answered call; no child process is left", () => {
    expect(r.kill.answeredBeforeKill).toBeGreaterThan(0);
    expect(r.kill).toMatchObject({ invalidLines: 0, partialLastLine: false, answeredMissing: 0, survivors: [] });
  });

  it("no leaked child processes or descriptors over the run", () => {
    expect(r.children.end).toBe(r.children.start);
    // Sockets of the HTTP sessions and the restarted server's pipes come and go; a leak grows with the calls.
    expect(r.fds.end).toBeLessThanOrEqual(r.fds.start + 8);
  });

  it("the spill file of a Bash call with 1.29 M characters of output holds all of it", () => {
    expect(r.spill.detail).toBeTruthy();
    expect(r.spill.ok, r.spill.detail).toBe(true); // the whole output (its final newline is not kept, as in the result)
  });
});
