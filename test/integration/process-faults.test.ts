/**
 * A fault in one part of the daemon must not end the process: an uncaught exception or an unhandled
 * rejection in `svc serve` is logged (without the token) and the daemon keeps serving.
 */
import { expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { join } from "node:path";
import { Logger } from "../../src/logging/logger.ts";
import { installFaultHandlers, MAX_FAULT_CHARS } from "../../src/logging/process-faults.ts";
import { MAIN_TS, spawnDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const PRELOAD = join(import.meta.dir, "..", "fixtures", "fault-preload.ts");

test("svc serve logs an uncaught exception and an unhandled rejection, without the token, and keeps serving", async () => {
  await using ws = tempDir("svc-ws-");
  const token = randomBytes(24).toString("hex");
  await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path, "--log-level", "debug"], {
    cmd: [process.execPath, "--preload", PRELOAD, MAIN_TS],
    env: { SVC_SERVER_TOKEN: token },
  });
  d.proc.kill("SIGUSR2");
  await until(() => d.stderr().includes("uncaught exception") && d.stderr().includes("unhandled rejection"), 10_000, "both faults in the log");
  expect(d.proc.exitCode).toBeNull();
  expect((await jsonRequest(d.url, "GET", "/health")).status).toBe(200);
  expect(d.stderr()).toContain("boom from a timer, token [redacted]");
  expect(d.stderr()).toContain("boom from a promise, token [redacted]");
  expect(d.stderr()).not.toContain(token);
});

test("installFaultHandlers: a thrown non-error and a long message are logged, cut to size", async () => {
  const lines: string[] = [];
  const logger = new Logger("debug", "text", { write: (chunk) => void lines.push(...chunk.split("\n").filter(Boolean)) });
  const source = new EventEmitter();
  installFaultHandlers(source, logger, ["s3cret"]);
  source.emit("uncaughtException", "a string with s3cret");
  source.emit("unhandledRejection", new Error("x".repeat(10_000)));
  source.emit("unhandledRejection", { toString: () => { throw new Error("hostile toString"); } });
  await logger.flush();
  expect(lines[0]).toContain('error="a string with [redacted]"');
  expect(lines[1]!.length).toBeLessThan(MAX_FAULT_CHARS + 200);
  expect(lines.filter((l) => l.includes("ERROR"))).toHaveLength(3);
});
