import { describe, expect, test } from "bun:test";
import { median, percentile } from "../../../bench/lib/stats.ts";
import { verdicts } from "../../../bench/lib/targets.ts";

describe("bench statistics", () => {
  test("median of odd and even counts, without reordering the input", () => {
    const samples = [5, 1, 3];
    expect(median(samples)).toBe(3);
    expect(samples).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  test("percentile by nearest rank", () => {
    const samples = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(percentile(samples, 90)).toBe(9);
    expect(percentile(samples, 100)).toBe(10);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile([7], 50)).toBe(7);
  });
});

describe("target verdicts", () => {
  test("judges at-most and at-least targets and skips figures not measured", () => {
    const list = verdicts({ startupMs: 60, idleRssMb: null, healthRps: 60_000, healthVsBare: 0.5, capabilitiesRps: null, payloadMb: 3.2 });
    expect(list.map((v) => [v.measured, v.direction, v.target, v.met])).toEqual([
      [60, "at most", 50, false],
      [60_000, "at least", 50_000, true],
      [0.5, "at least", 0.75, false],
      [3.2, "at most", 3, false],
    ]);
  });
});
