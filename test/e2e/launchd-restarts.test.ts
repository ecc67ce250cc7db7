/**
 * A daemon started by svc's launchd agent (XPC_SERVICE_NAME=dev.svc.daemon, as launchd sets it)
 * bounds launchd's restart loop itself: the fifth failed start within the window exits 0, which
 * the agent's KeepAlive does not restart; a start that listens clears the count; the agent's log
 * is rotated at a start once past its bound. Without XPC_SERVICE_NAME nothing of this happens.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clearFailedStarts, MAX_FAILED_STARTS, MAX_LOG_BYTES, recordFailedStart, rotateServiceLog, WINDOW_MS } from "../../src/runtime/launchd-restarts.ts";
import { runSvc, spawnDaemon } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const LAUNCHD = { XPC_SERVICE_NAME: "dev.svc.daemon" };

describe.concurrent("svc serve under launchd", () => {
  test("the fifth failed start in a row exits 0 (launchd stops restarting), saying why; then the count starts again", async () => {
    await using dir = tempDir("svc-launchd-starts-");
    const env = { ...LAUNCHD, SVC_HOME: dir.path };
    const codes: (number | null)[] = [];
    let last = "";
    for (let i = 0; i < MAX_FAILED_STARTS + 1; i++) {
      const result = await runSvc(["serve", "--port", "70000"], { env });
      codes.push(result.exitCode);
      if (i === MAX_FAILED_STARTS - 1) last = result.stderr;
    }
    expect(codes).toEqual([2, 2, 2, 2, 0, 2]);
    expect(last).toContain(`svc: ${MAX_FAILED_STARTS} failed starts under launchd within 5 min: exiting 0 so launchd stops restarting`);
  });

  test("a start that listens clears the count", async () => {
    await using dir = tempDir("svc-launchd-starts-");
    const env = { ...LAUNCHD, SVC_HOME: dir.path };
    for (let i = 0; i < MAX_FAILED_STARTS - 1; i++) expect((await runSvc(["serve", "--port", "70000"], { env })).exitCode).toBe(2);
    const record = join(dir.path, "logs", "service-starts.json");
    expect(JSON.parse(readFileSync(record, "utf8")).failures).toHaveLength(MAX_FAILED_STARTS - 1);
    await using daemon = await spawnDaemon(["serve", "--port", "0", "--workspace", dir.path], { env });
    expect(daemon.url).toStartWith("http://");
    expect(existsSync(record)).toBe(false);
    expect((await runSvc(["serve", "--port", "70000"], { env })).exitCode).toBe(2);
  });

  test("without XPC_SERVICE_NAME (or with another job's) a failed start always exits 2 and records nothing", async () => {
    await using dir = tempDir("svc-launchd-starts-");
    for (const extra of [{}, { XPC_SERVICE_NAME: "com.other.job" }])
      for (let i = 0; i < MAX_FAILED_STARTS; i++) expect((await runSvc(["serve", "--port", "70000"], { env: { ...extra, SVC_HOME: dir.path } })).exitCode).toBe(2);
    expect(existsSync(join(dir.path, "logs"))).toBe(false);
  });

  test("the agent's log past its bound is rotated at a launchd start: kept once as service.log.1, truncated in place", async () => {
    await using dir = tempDir("svc-launchd-starts-");
    const logs = join(dir.path, "logs");
    mkdirSync(logs, { recursive: true });
    const log = join(logs, "service.log");
    writeFileSync(log, Buffer.alloc(MAX_LOG_BYTES + 1, "a"));
    expect((await runSvc(["serve", "--port", "70000"], { env: { ...LAUNCHD, SVC_HOME: dir.path } })).exitCode).toBe(2);
    expect(statSync(join(logs, "service.log.1")).size).toBe(MAX_LOG_BYTES + 1);
    expect(statSync(log).size).toBe(0);
  });
});

describe("failed-start record", () => {
  test("only failures within the window count", async () => {
    await using dir = tempDir("svc-launchd-starts-");
    const t0 = 1_000_000_000;
    for (let i = 0; i < MAX_FAILED_STARTS - 1; i++) expect(recordFailedStart(dir.path, t0 + i * 10_000).giveUp).toBe(false);
    // The first failure has left the window: four count, not five.
    expect(recordFailedStart(dir.path, t0 + WINDOW_MS + 1)).toEqual({ failures: MAX_FAILED_STARTS - 1, giveUp: false });
    expect(recordFailedStart(dir.path, t0 + WINDOW_MS + 2)).toEqual({ failures: MAX_FAILED_STARTS, giveUp: true });
    expect(recordFailedStart(dir.path, t0 + WINDOW_MS + 3)).toEqual({ failures: 1, giveUp: false });
    clearFailedStarts(dir.path);
    expect(recordFailedStart(dir.path, t0 + WINDOW_MS + 4)).toEqual({ failures: 1, giveUp: false });
  });

  test("a log at its bound or under it is left alone", async () => {
    await using dir = tempDir("svc-launchd-starts-");
    expect(rotateServiceLog(dir.path, 10)).toBe(false);
    mkdirSync(join(dir.path, "logs"));
    writeFileSync(join(dir.path, "logs", "service.log"), "0123456789");
    expect(rotateServiceLog(dir.path, 10)).toBe(false);
    expect(existsSync(join(dir.path, "logs", "service.log.1"))).toBe(false);
  });
});
