/**
 * Issue 23's bench logic: figures judged as ratios to the bare baseline built in the same run (with
 * both absolute values beside the ratio), the fan-out lag with its event rate, the journaling cost,
 * and which sections `--quick` and `--only` run.
 */
import { describe, expect, test } from "bun:test";
import { pickSections, QUICK_SECTIONS, SECTIONS } from "../../../bench/lib/sections.ts";
import { TARGETS, verdicts, vsBare } from "../../../bench/lib/targets.ts";

const base = { startupMs: null, idleRssMb: null, healthRps: null, healthVsBare: null, capabilitiesRps: null, payloadMb: 2 };

describe("ratio targets", () => {
  test("a figure against its baseline is judged on svc ÷ bare, and shows both absolute values", () => {
    const list = verdicts({ ...base, startupVsBare: { svc: 12, bare: 6 }, versionVsBare: { svc: 30, bare: 10 }, rssVsBare: { svc: 26, bare: 18 } });
    const [startup, version, rss] = list;
    expect([startup!.measured, startup!.target, startup!.met]).toEqual([2, TARGETS.startupVsBare, true]);
    expect(startup!.detail).toBe("svc 12.0 ms, bare 6.00 ms");
    expect([version!.measured, version!.met]).toEqual([3, false]);
    expect(rss!.measured).toBeCloseTo(26 / 18, 10);
    expect(rss!.met).toBe(true);
    expect(rss!.detail).toBe("svc 26.0 MB, bare 18.0 MB");
  });

  test("vsBare picks svc's and the baseline's rows by name, and is null when either did not run", () => {
    const rows = [
      { name: "svc", ms: 9 },
      { name: "bare", ms: 3 },
      { name: "other", ms: 1 },
    ];
    expect(vsBare(rows, (r) => r.ms, "svc", "bare")).toEqual({ svc: 9, bare: 3 });
    expect(vsBare(rows.slice(0, 1), (r) => r.ms, "svc", "bare")).toBeNull();
    expect(vsBare(undefined, (r: { name: string }) => r.name.length, "svc", "bare")).toBeNull();
  });

  test("the fan-out lag carries its event rate, the journal cost its two throughputs, and the agent figures their targets", () => {
    const list = verdicts({
      ...base,
      fanout1000P99Ms: 4.2,
      fanout1000Rate: { eventsPerSecond: 99.6, framesPerSecond: 99_600 },
      fanout1000BareP99Ms: 2.1,
      journalCost: { cost: 0.12, onEventsPerSecond: 8800, offEventsPerSecond: 10_000 },
      agentInitMs: 40,
      agentIdleRssMb: 36,
      builtinFirstSessionMs: 120,
    });
    const by = (what: string) => list.find((v) => v.what.startsWith(what))!;
    expect(by("1000 subscribers")).toMatchObject({ measured: 4.2, met: true, detail: "100/s events, 99,600/s frames delivered; bare fan-out 2.10 ms (2.00×)" });
    expect(by("journaling cost")).toMatchObject({ measured: 0.12, target: 0.1, met: false, detail: "journal on 8,800/s, off 10,000/s events" });
    expect(by("built-in agent spawn")).toMatchObject({ target: 50, met: true });
    expect(by("built-in agent idle RSS")).toMatchObject({ target: 35, met: false });
    expect(by("daemon spawn → first session")).toMatchObject({ target: 120, met: true });
  });
});

describe("sections", () => {
  test("--quick runs issue 23's targets; a full run runs everything; --only wins over both and keeps the bench's order", () => {
    expect(pickSections([], true)).toEqual([...QUICK_SECTIONS]);
    expect(pickSections([], false)).toEqual([...SECTIONS]);
    expect(pickSections(["agent,startup", "rss"], true)).toEqual(["startup", "rss", "agent"]);
    expect(() => pickSections(["fanout"], false)).toThrow(/not one of/);
  });
});
