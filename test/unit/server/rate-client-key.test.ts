/** Rate-limit bucket keys: every loopback spelling is one client; other addresses key themselves. */
import { expect, test } from "bun:test";
import { rateClientKey } from "../../../src/server/security/rate-limiter.ts";

test("all loopback addresses (127/8, ::1, IPv4-mapped) share one key", () => {
  const keys = new Set(["127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::FFFF:127.9.9.9"].map(rateClientKey));
  expect(keys.size).toBe(1);
});

test("other addresses key themselves, an IPv4-mapped one as its IPv4 form", () => {
  expect(rateClientKey("192.168.1.5")).toBe("192.168.1.5");
  expect(rateClientKey("::ffff:192.168.1.5")).toBe("192.168.1.5");
  expect(rateClientKey("128.0.0.1")).not.toBe(rateClientKey("127.0.0.1"));
  expect(rateClientKey("fe80::1")).not.toBe(rateClientKey("::1"));
});
