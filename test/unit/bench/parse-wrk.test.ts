import { describe, expect, test } from "bun:test";
import { parseWrk } from "../../../bench/lib/wrk.ts";

const CLEAN = `Running 1s test @ http://127.0.0.1:33635/health
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   198.61us  688.09us   8.51ms   94.23%
    Req/Sec    44.07k    12.44k   58.09k    81.82%
  Latency Distribution
     50%   41.00us
     75%   45.00us
     90%  101.00us
     99%    3.72ms
  48172 requests in 1.10s, 6.29MB read
Requests/sec:  43789.30
Transfer/sec:      5.72MB
`;

describe("parseWrk", () => {
  test("reads requests/s, the 50% and 99% latency lines in ms, and the request count", () => {
    const result = parseWrk(CLEAN);
    expect(result.requestsPerSecond).toBe(43789.3);
    expect(result.p50Ms).toBeCloseTo(0.041, 6);
    expect(result.p99Ms).toBeCloseTo(3.72, 6);
    expect(result.requests).toBe(48172);
    expect(result.errors).toBe(0);
  });

  test("counts non-2xx answers and every kind of socket error as errors", () => {
    const output = CLEAN.replace(
      "Requests/sec:",
      "  Socket errors: connect 1, read 2, write 3, timeout 4\n  Non-2xx or 3xx responses: 10\nRequests/sec:",
    ).replace("     99%    3.72ms", "     99%    1.02s");
    const result = parseWrk(output);
    expect(result.errors).toBe(20);
    expect(result.p99Ms).toBeCloseTo(1020, 6);
  });

  test("rejects output without a latency distribution", () => {
    expect(() => parseWrk("Requests/sec: 1\n")).toThrow(/unexpected output/);
  });
});
