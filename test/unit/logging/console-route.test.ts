/**
 * `console.*` in the daemon process goes through the logger (`logging/console-route.ts`): a library
 * printing agent-chosen text (the ACP SDK's "Got response to unknown request", id) cannot put raw
 * lines, forged log lines, escape sequences or known secrets on the daemon's stderr.
 */
import { describe, expect, test } from "bun:test";
import { routeConsoleToLogger, type ConsoleLike, MAX_CONSOLE_CHARS } from "../../../src/logging/console-route.ts";
import { Logger } from "../../../src/logging/logger.ts";

function capture(format: "json" | "text"): { logger: Logger; lines: () => Promise<string[]> } {
  let text = "";
  const logger = new Logger("info", format, { write: (chunk) => void (text += chunk) });
  return {
    logger,
    lines: async () => {
      await logger.flush(1000);
      return text.split("\n").filter(Boolean);
    },
  };
}

const fakeConsole = (): ConsoleLike => {
  const raw = () => {
    throw new Error("reached the real console");
  };
  return { log: raw, info: raw, warn: raw, error: raw, debug: raw, trace: raw };
};

describe("routeConsoleToLogger", () => {
  test("an agent-chosen id with a newline, a forged log line, a secret and OSC/CSI sequences becomes one JSON warn line: redacted, no control bytes", async () => {
    const secret = "sk-console-secret-12345678";
    const { logger, lines } = capture("json");
    const target = fakeConsole();
    routeConsoleToLogger(target, logger, [secret]);
    const id = `zz\n2026-11-23T00:00:00.000Z INFO forged log line key=${secret} \u001b]0;TITLE\u0007\u001b[31mRED`;
    target.error("Got response to unknown request", id);
    target.log({ nested: { key: secret } });
    const out = await lines();
    expect(out).toHaveLength(2);
    for (const line of out) {
      expect(line).not.toContain(secret);
      expect(/[\u0000-\u001f\u007f]/.test(line)).toBe(false);
      const record = JSON.parse(line);
      expect(record).toMatchObject({ level: "warn", msg: "console output" });
    }
    expect(JSON.parse(out[0]!)).toMatchObject({ console: "error", text: expect.stringContaining("Got response to unknown request zz") });
    expect(JSON.parse(out[0]!).text).toContain("[redacted]");
    expect(JSON.parse(out[1]!)).toMatchObject({ console: "log", text: expect.stringContaining("[redacted]") });
  });

  test("text format: one line per call, cut at MAX_CONSOLE_CHARS", async () => {
    const { logger, lines } = capture("text");
    const target = fakeConsole();
    routeConsoleToLogger(target, logger, []);
    target.warn("x".repeat(MAX_CONSOLE_CHARS * 3));
    const out = await lines();
    expect(out).toHaveLength(1);
    expect(out[0]).toContain("WARN console output");
    expect(out[0]!.length).toBeLessThan(MAX_CONSOLE_CHARS + 200);
  });
});
