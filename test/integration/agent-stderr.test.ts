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
