/**
 * What an agent child writes to stderr goes to the daemon's log, and a child that dies unexpectedly
 * is reported with its last stderr lines; a planned stop reports nothing of the kind.
 */
import { expect, test } from "bun:test";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { until } from "../helpers/until.ts";

const env = { FAKE_AGENT_STDERR_LINES: "3" };

test("a crashed child is reported with its last stderr lines", async () => {
  await using d = await fakeAgentDaemon([], { env });
  const { sessionId } = await d.createSession();
  expect((await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "@crash 3" }] })).status).toBe(202);
  await until(() => d.logs.some((l) => l.includes("agent died unexpectedly")), 10_000, "the crash report");
  const report = d.logs.slice(d.logs.findIndex((l) => l.includes("agent died unexpectedly")));
  expect(report.filter((l) => /WARN agent stderr .*fake-agent stderr line \d\/3/.test(l))).toHaveLength(3);
});

test("a planned stop does not report the child as dead", async () => {
  await using d = await fakeAgentDaemon([], { env });
  const { sessionId } = await d.createSession();
  expect((await d.json("DELETE", `/session/${sessionId}`)).status).toBe(204);
  await until(() => d.logs.some((l) => l.includes("agent exited")), 10_000, "the child to exit");
  expect(d.logs.some((l) => l.includes("agent died unexpectedly"))).toBe(false);
  expect(d.logs.some((l) => /DEBUG agent stderr .*fake-agent stderr line 1\/3/.test(l))).toBe(true);
});

test("terminal escape sequences and control characters from the child never reach the log raw", async () => {
  await using d = await fakeAgentDaemon();
  const { sessionId } = await d.createSession();
  const hostile = "\u001b[31mred\u001b[0m \u001b]0;retitled\u0007title \u001b[2J\u001b[Hcleared \u009b1mcsi8 del\u007f bidi\u202eevil";
  expect((await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `@stderr ${hostile}\n@crash 3` }] })).status).toBe(202);
  await until(() => d.logs.some((l) => l.includes("agent died unexpectedly")), 10_000, "the crash report");
  const reported = await until(() => d.logs.find((l) => /WARN agent stderr .*red/.test(l)), 5000, "the child's line in the crash report");
  expect(reported).toContain("red title cleared");
  for (const line of d.logs) expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  expect(reported).toContain("\\u007f");
  expect(reported).toContain("\\u202e");
});
