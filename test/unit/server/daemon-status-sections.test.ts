/**
 * `collectSections` (each workspace section on its own, with a timeout) and the memory sampler
 * (memory use read on a timer, never per request).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MemorySampler } from "../../../src/server/memory-sampler.ts";
import { collectSections, type WorkspaceSection } from "../../../src/server/status-sections.ts";
import { until } from "../../helpers/until.ts";

const cells = (...statuses: string[]) => ({ v: 1, workspaceCwd: "/w", initialized: false, cells: statuses.map((status, i) => ({ kind: `k${i}`, status })) });
const section = (name: string, read: WorkspaceSection["read"]): WorkspaceSection => ({ name, read });

describe("collectSections", () => {
  test("a section that throws, rejects, times out or answers a non-object is unavailable; the others are read", async () => {
    let timedOutSignal: AbortSignal | null = null;
    const reports = await collectSections(
      [
        section("good", async () => cells("ok", "warning", "not_started")),
        section("throws", () => {
          throw new Error("sync boom");
        }),
        section("rejects", async () => {
          throw new Error("async boom");
        }),
        section("hangs", (signal) => {
          timedOutSignal = signal;
          return new Promise(() => {});
        }),
        section("scalar", async () => 42),
        section("bad", async () => cells("error")),
      ],
      50,
    );
    expect(reports.good).toMatchObject({ status: "warning", summary: { initialized: false, cellsCount: 3 }, data: cells("ok", "warning", "not_started") });
    expect(reports.throws).toMatchObject({ status: "unavailable", error: { kind: "error", message: "sync boom" } });
    expect(reports.rejects).toMatchObject({ status: "unavailable", error: { kind: "error", message: "async boom" } });
    expect(reports.hangs).toMatchObject({ status: "unavailable", error: { kind: "timeout", message: "no answer within 50 ms" } });
    expect(timedOutSignal!.aborted).toBe(true);
    expect(reports.scalar).toMatchObject({ status: "unavailable", error: { kind: "error" } });
    expect(reports.bad).toMatchObject({ status: "error" });
    for (const report of Object.values(reports)) expect(Number.isInteger(report.durationMs)).toBe(true);
  });

  test("sections are read in parallel: one that hangs does not hold the others back", async () => {
    const started: string[] = [];
    const reports = await collectSections(
      ["a", "b", "c"].map((name) =>
        section(name, () => {
          started.push(name);
          return name === "a" ? new Promise(() => {}) : Promise.resolve(cells("ok"));
        }),
      ),
      50,
    );
    expect(started).toEqual(["a", "b", "c"]);
    expect(Object.fromEntries(Object.entries(reports).map(([k, v]) => [k, v.status]))).toEqual({ a: "unavailable", b: "ok", c: "ok" });
  });

  test("statuses nested in an MCP-like payload count", async () => {
    const reports = await collectSections([section("mcp", async () => ({ v: 1, servers: [{ name: "x", status: "ok", budgets: [{ kind: "mcp_budget", status: "error" }] }] }))], 50);
    expect(reports.mcp).toMatchObject({ status: "error", summary: { serversCount: 1 } });
  });
});

describe("MemorySampler", () => {
  const realClearInterval = globalThis.clearInterval;
  afterEach(() => {
    globalThis.clearInterval = realClearInterval;
  });

  test("status reads share the timer's sample instead of reading memory each time", async () => {
    let reads = 0;
    const sampler = new MemorySampler({ read: () => ({ rssBytes: ++reads, heapUsedBytes: 1 }), intervalMs: 20, idleTicksBeforeStop: 1000 });
    for (let i = 0; i < 100; i++) expect(sampler.current()).toEqual({ rssBytes: 1, heapUsedBytes: 1 });
    expect(reads).toBe(1);
    // The timer refreshes the sample.
    await until(() => sampler.current()!.rssBytes >= 3, 5000, "the timer to take samples");
  });

  test("without reads the timer stops; the next read samples at once and starts it again", async () => {
    let cleared = 0;
    globalThis.clearInterval = ((id: Parameters<typeof clearInterval>[0]) => {
      cleared++;
      realClearInterval(id);
    }) as typeof clearInterval;
    let reads = 0;
    const sampler = new MemorySampler({ read: () => ({ rssBytes: ++reads, heapUsedBytes: 1 }), intervalMs: 5, idleTicksBeforeStop: 2 });
    sampler.current();
    await until(() => cleared === 1, 5000, "the idle timer to stop");
    // The first read, then one per tick up to the idle limit.
    expect(reads).toBe(3);
    expect(sampler.current()!.rssBytes).toBe(4);
  });

  test("a sample that cannot be taken is null", () => {
    const sampler = new MemorySampler({
      read: () => null,
      intervalMs: 1000,
      idleTicksBeforeStop: 0,
    });
    expect(sampler.current()).toBeNull();
  });
});
