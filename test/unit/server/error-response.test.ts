/**
 * The error mapper on errors no service typed: running out of a system resource (descriptors,
 * process slots, memory) is 503 `resource_exhausted` with Retry-After, not an anonymous 500.
 */
import { describe, expect, test } from "bun:test";
import { Logger } from "../../../src/logging/logger.ts";
import { errorResponse } from "../../../src/server/error-response.ts";
import { until } from "../../helpers/until.ts";

function mapped(error: unknown) {
  const logs: string[] = [];
  const logger = new Logger("debug", "text", { write: (chunk) => void logs.push(chunk) });
  return { response: errorResponse("UNKNOWN", error, logger), logs };
}

/** An error shaped like the one Bun.spawn throws under a full descriptor table. */
function systemError(code: string): Error {
  return Object.assign(new Error(`${code}: too many open files, socketpair`), { code, errno: -24, syscall: "socketpair" });
}

describe("an error that means the process is out of a system resource", () => {
  test.each(["EMFILE", "ENFILE", "EAGAIN", "ENOMEM"])("%s is 503 resource_exhausted with Retry-After", async (code) => {
    const { response, logs } = mapped(systemError(code));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { error: string; code: string };
    expect(body).toEqual({ error: expect.stringContaining(code), code: "resource_exhausted" });
    expect(body.error).not.toContain("socketpair");
    await until(() => logs.join("").includes(code), 1000, "the warning to be logged (lines are written in batches)");
  });

  test("found through the error's cause too", async () => {
    const { response } = mapped(new Error("starting the agent failed", { cause: systemError("EMFILE") }));
    expect(response.status).toBe(503);
    expect(((await response.json()) as { code: string }).code).toBe("resource_exhausted");
  });
});

describe("other untyped errors", () => {
  test("stay a fixed 500 without a code", async () => {
    for (const error of [new Error("boom"), systemError("EACCES"), Object.assign(new Error("x"), { code: 24 })]) {
      const { response } = mapped(error);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: "Internal server error" });
    }
  });
});
