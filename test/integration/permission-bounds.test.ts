/**
 * An agent's permission requests are bounded in bytes before the daemon keeps or publishes them
 * (`src/runtime/permission-bounds.ts`): too many options or an overlong option id is refused (the
 * agent hears -32602 and why, the session gets `permission_request_refused`, nobody is asked); a
 * long option name is cut; a tool call over MAX_TOOL_CALL_BYTES is cut with markers and still put
 * to the vote; session status and list entries carry a summary, never the call's content. A hostile
 * agent's flood leaves the daemon's memory and its session list small (issue 22 round 2).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CUT_MARK, MAX_OPTION_ID_BYTES, MAX_OPTION_NAME_BYTES, MAX_PERMISSION_OPTIONS, MAX_TOOL_CALL_BYTES } from "../../src/runtime/permission-bounds.ts";
import { PENDING_PERMISSION_BYTES } from "../../src/runtime/permission-budget.ts";
import { MAX_PENDING } from "../../src/sessions/permission-broker.ts";
import { MAX_LISTED_INTERACTIONS } from "../../src/sessions/session-summary.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import type { SseClient } from "../helpers/sse-client.ts";
import { until } from "../helpers/until.ts";

const agentText = (events: SseClient) =>
  events.frames
    .filter((f) => f.event === "session_update" && f.data.update.sessionUpdate === "agent_message_chunk")
    .map((f) => f.data.update.content.text as string)
    .join("");

const option = (optionId: string, name = "Allow", kind = "allow_once") => ({ optionId, name, kind });
const toolCall = { toolCallId: "call-1", title: "Edit notes.md", kind: "edit", status: "pending" };
const ask = (request: unknown) => `@ask ${JSON.stringify(request)}`;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
/** What a flood may leave in the daemon's resident memory once it is over (the held requests' budget and some slack); before the bounds it kept 240 to 300 MiB. */
const RETAINED_MIB = 64;

/** A session of `d` with its events, and a prompt of `text` sent to it. */
async function promptSession(d: FakeAgentDaemon, text: string) {
  const { sessionId } = await d.createSession({ sessionScope: "thread" });
  const events = await d.events(sessionId, { "Last-Event-ID": "0" });
  const prompt = await d.json("POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text }] });
  expect(prompt.status).toBe(202);
  return { sessionId, events, promptId: prompt.body.promptId as string };
}

/** The daemon process's resident memory now and at its peak, in MiB (`/proc/<pid>/status`). */
function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

describe("permission requests within bounds", () => {
  test(`${MAX_PERMISSION_OPTIONS + 1} options: refused with -32602 and a permission_request_refused event, nobody asked, the turn goes on; ${MAX_PERMISSION_OPTIONS} are put to the vote`, async () => {
    await using d = await fakeAgentDaemon();
    const many = Array.from({ length: MAX_PERMISSION_OPTIONS + 1 }, (_, i) => option(`o${i}`));
    const s = await promptSession(d, `${ask({ toolCall, options: many })}\n${ask({ toolCall, options: many.slice(0, MAX_PERMISSION_OPTIONS) })}`);
    await using events = s.events;

    const refused = await events.first("permission_request_refused");
    expect(refused.data).toEqual({ sessionId: s.sessionId, reason: "too_many_options", options: MAX_PERMISSION_OPTIONS + 1, limit: MAX_PERMISSION_OPTIONS });
    expect(refused.raw).toContain(`"promptId":"${s.promptId}"`);
    await until(() => agentText(events).includes("permission: failed"), 10_000, "the agent to hear the refusal");
    expect(agentText(events)).toContain(`permission: failed: -32602 The permission request offers ${MAX_PERMISSION_OPTIONS + 1} options; the daemon accepts at most ${MAX_PERMISSION_OPTIONS}`);

    const asked = await events.first("permission_request");
    expect(events.frames.filter((f) => f.event === "permission_request")).toHaveLength(1);
    expect(asked.data.options).toHaveLength(MAX_PERMISSION_OPTIONS);
    expect((await d.json("POST", `/session/${s.sessionId}/permission/${asked.data.requestId}`, { outcome: { outcome: "selected", optionId: `o${MAX_PERMISSION_OPTIONS - 1}` } })).status).toBe(200);
    expect((await events.first("turn_complete")).data).toMatchObject({ stopReason: "end_turn" });
    expect(agentText(events)).toContain(`permission: selected o${MAX_PERMISSION_OPTIONS - 1}`);
    const transcript = await d.json("GET", `/session/${s.sessionId}/transcript`);
    expect(JSON.stringify(transcript.body)).toContain("permission_request_refused");
  });

  test(`an option id over ${MAX_OPTION_ID_BYTES} bytes is refused; one of exactly ${MAX_OPTION_ID_BYTES} goes back verbatim; a long name is cut, option _meta dropped`, async () => {
    await using d = await fakeAgentDaemon();
    const longId = "é".repeat(MAX_OPTION_ID_BYTES / 2) + "x"; // 129 bytes in 65 characters
    const exactId = "é".repeat(MAX_OPTION_ID_BYTES / 2);
    const longName = "€".repeat(10_000);
    const s = await promptSession(
      d,
      `${ask({ toolCall, options: [option(longId), option("no", "Reject", "reject_once")] })}\n${ask({ toolCall, options: [{ ...option(exactId, longName), _meta: { pad: "m".repeat(100_000) } }, option("no", "Reject", "reject_once")] })}`,
    );
    await using events = s.events;

    expect((await events.first("permission_request_refused")).data).toEqual({ sessionId: s.sessionId, reason: "option_id_too_long", bytes: MAX_OPTION_ID_BYTES + 1, limit: MAX_OPTION_ID_BYTES });
    const asked = await events.first("permission_request");
    const [first] = asked.data.options;
    expect(first.optionId).toBe(exactId);
    expect(Buffer.byteLength(first.name)).toBeLessThanOrEqual(MAX_OPTION_NAME_BYTES);
    expect(first.name).toEndWith("…");
    expect(first.name.startsWith("€€€")).toBe(true);
    expect(first._meta).toBeUndefined();
    const status = await d.json("GET", `/session/${s.sessionId}/status`);
    expect(status.body.pendingInteractions[0].options[0]).toEqual({ optionId: exactId, label: first.name, kind: "allow_once" });

    expect((await d.json("POST", `/session/${s.sessionId}/permission/${asked.data.requestId}`, { outcome: { outcome: "selected", optionId: exactId } })).status).toBe(200);
    await events.first("turn_complete");
    expect(agentText(events)).toContain(`permission: failed: -32602 A permission option id is ${MAX_OPTION_ID_BYTES + 1} bytes`);
    expect(agentText(events)).toContain(`permission: selected ${exactId}`);
  });

  test("a tool call over the bound is cut with markers (text, command, diff), still put to the vote, and the status keeps only its identity", async () => {
    await using d = await fakeAgentDaemon();
    const big = "q".repeat(3 * 1024 * 1024);
    const diffCall = { ...toolCall, toolCallId: "call-diff", content: [{ type: "content", content: { type: "text", text: "intro" } }, { type: "diff", path: "/w/notes.md", oldText: "a", newText: big }] };
    const s = await promptSession(d, `@ask-many 1 2 2048\n${ask({ toolCall: diffCall, options: [option("yes"), option("no", "Reject", "reject_once")] })}`);
    await using events = s.events;

    const asked = await events.first("permission_request");
    const cut = asked.data.toolCall;
    expect(bytes(cut)).toBeLessThanOrEqual(MAX_TOOL_CALL_BYTES);
    expect(cut).toMatchObject({ toolCallId: expect.stringMatching(/^fake-ask-/), kind: "execute", status: "pending" });
    // (toMatchObject would read the dotted key as a path.)
    expect(cut._meta[CUT_MARK].limit).toBe(MAX_TOOL_CALL_BYTES);
    expect(cut._meta[CUT_MARK].bytes).toBeGreaterThan(4 * 1024 * 1024);
    expect(bytes(cut)).toBeGreaterThan(MAX_TOOL_CALL_BYTES - 64 * 1024);
    expect(cut.content.at(-1).content.text).toMatch(/^\[\d+ more content blocks not shown: over the \d+ bytes the daemon keeps of a permission request\]$/);
    expect(cut.rawInput).toMatchObject({ truncated: true, totalBytes: expect.any(Number) });
    expect(cut.rawInput.preview.startsWith('{"command":"ppp')).toBe(true);

    const status = await d.json("GET", `/session/${s.sessionId}/status`);
    expect(status.body.pendingInteractions[0].toolCall).toEqual({ toolCallId: cut.toolCallId, title: cut.title, kind: "execute", status: "pending" });
    expect(bytes(status.body)).toBeLessThan(8 * 1024);

    expect((await d.json("POST", `/session/${s.sessionId}/permission/${asked.data.requestId}`, { outcome: { outcome: "selected", optionId: "allow-0" } })).status).toBe(200);
    const diffAsk = await events.first("permission_request", (f) => f.data.toolCall.toolCallId === "call-diff");
    const diff = diffAsk.data.toolCall;
    expect(bytes(diff)).toBeLessThanOrEqual(MAX_TOOL_CALL_BYTES);
    expect(diff.content[0]).toEqual({ type: "content", content: { type: "text", text: "intro" } });
    // Never half a diff: the whole block is replaced by a note naming it.
    expect(diff.content[1]).toEqual({ type: "content", content: { type: "text", text: `[diff of /w/notes.md not shown: ${bytes(diffCall.content[1])} bytes, over the ${MAX_TOOL_CALL_BYTES} bytes the daemon keeps of a permission request]` } });
    expect((await d.json("POST", `/session/${s.sessionId}/permission/${diffAsk.data.requestId}`, { outcome: { outcome: "selected", optionId: "yes" } })).status).toBe(200);
    await events.first("turn_complete");
    expect(agentText(events)).toMatch(/permission fake-ask-\d+: selected allow-0/);
    expect(agentText(events)).toContain("permission: selected yes");
  });

  test(`a hostile agent's flood: ${MAX_PENDING} requests of 20000 options each, then ${MAX_PENDING} of 4 MiB each: the daemon's memory comes back, its session list stays small, answers give the agent's budget back`, async () => {
    await using d = await fakeAgentDaemon([], { ownProcess: true });
    const s = await promptSession(d, "hello");
    await using events = s.events;
    await events.first("turn_complete");
    const before = memoryMiB(d.pid).rss;
    /** Waits for the daemon's resident memory to come back within RETAINED_MIB of where it was (freed memory goes back to the system within seconds). */
    const settled = async (stage: string) => {
      const now = await until(() => (memoryMiB(d.pid).rss - before < RETAINED_MIB ? memoryMiB(d.pid) : null), 20_000, `the daemon's memory after ${stage} to come back (${memoryMiB(d.pid).rss.toFixed(0)} MiB, was ${before.toFixed(0)})`);
      console.log(`daemon memory after ${stage}: ${now.rss.toFixed(0)} MiB (was ${before.toFixed(0)} MiB; peak ${now.peak.toFixed(0)} MiB)`);
    };

    const flood = await d.json("POST", `/session/${s.sessionId}/prompt`, { prompt: [{ type: "text", text: `@ask-many ${MAX_PENDING} 20000 0` }] });
    expect(flood.status).toBe(202);
    await events.first("turn_complete", (f) => f.data.promptId === flood.body.promptId, 60_000);
    expect(events.frames.filter((f) => f.event === "permission_request_refused")).toHaveLength(MAX_PENDING);
    await settled("the options flood");

    const big = await d.json("POST", `/session/${s.sessionId}/prompt`, { prompt: [{ type: "text", text: `@ask-many ${MAX_PENDING} 2 4096` }] });
    expect(big.status).toBe(202);
    const asked = () => events.frames.filter((f) => f.event === "permission_request" && f.data.toolCall.toolCallId.startsWith("fake-ask-"));
    await until(() => asked().length >= MAX_PENDING, 60_000, `${MAX_PENDING} permission requests`);
    // Each cut within the bound, all of them within the agent's budget of held requests: the first
    // ones cut to the bound, the ones past the budget to their identity and a note.
    const sizes = asked().map((f) => bytes(f.data.toolCall));
    expect(sizes[0]).toBeGreaterThan(MAX_TOOL_CALL_BYTES - 64 * 1024);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_TOOL_CALL_BYTES);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(PENDING_PERMISSION_BYTES);
    expect(sizes.at(-1)).toBeLessThan(2048);

    const workspaceSessions = `/workspace/${encodeURIComponent(d.workspace)}/sessions`;
    const listText = await (await d.fetch(workspaceSessions)).text();
    const entry = (JSON.parse(listText) as { sessions: any[] }).sessions.find((x) => x.sessionId === s.sessionId);
    expect(entry).toMatchObject({ isWaitingForPermission: true, pendingInteractionCount: MAX_PENDING });
    expect(entry.pendingInteractions).toHaveLength(MAX_LISTED_INTERACTIONS);
    const statusText = await (await d.fetch(`/session/${s.sessionId}/status`)).text();
    expect(JSON.parse(statusText).pendingInteractions).toHaveLength(MAX_PENDING);
    console.log(`session list ${Buffer.byteLength(listText)} bytes, status ${Buffer.byteLength(statusText)} bytes`);
    expect(Buffer.byteLength(listText)).toBeLessThan(16 * 1024);
    expect(Buffer.byteLength(statusText)).toBeLessThan(64 * 1024);
    await settled("the 4 MiB requests");

    // Answers (here a cancel of them all) give the budget back: the next request is kept up to the bound again.
    expect((await d.json("POST", `/session/${s.sessionId}/cancel`, {})).status).toBe(204);
    await events.first("turn_complete", (f) => f.data.promptId === big.body.promptId, 30_000);
    const again = await d.json("POST", `/session/${s.sessionId}/prompt`, { prompt: [{ type: "text", text: "@ask-many 1 2 4096" }] });
    const next = await events.first("permission_request", (f) => f.envelope.promptId === again.body.promptId, 30_000);
    expect(bytes(next.data.toolCall)).toBeGreaterThan(MAX_TOOL_CALL_BYTES - 64 * 1024);
    expect((await d.json("POST", `/session/${s.sessionId}/cancel`, {})).status).toBe(204);
    await events.first("turn_complete", (f) => f.data.promptId === again.body.promptId, 30_000);
  }, 180_000);
});
