/**
 * A streamable HTTP MCP server's answer is bounded like a stdio server's (hostile review round 2,
 * issue 22 deliverable 4): a 500 MB tool result, as a JSON body or as one event, fails the call at
 * MCP_MESSAGE_BYTES with a tool error that says why, the agent reads little of it and stays small,
 * and the server reconnects on the next prompt. A structured result is checked against its tool's
 * outputSchema (by @cfworker/json-schema: the binary holds no Ajv, build.ts).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MCP_MESSAGE_BYTES } from "../../src/builtin-agent/mcp/mcp-servers.ts";
import { startBigMcpHttpServer } from "../fixtures/mcp-test-tools.ts";
import { startAgent } from "./agent-client.ts";

const hostSettings = join(process.env.SVC_HOME!, "settings.json");
afterEach(() => rmSync(hostSettings, { force: true }));

const MB = 1024 * 1024;
/** Peak resident memory of a process (Linux), in MiB. */
const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const toolResults = (requests: unknown[]) =>
  ((requests.at(-1) as { messages: Array<{ role: string; content: string }> }).messages ?? []).filter((m) => m.role === "tool").map((m) => m.content);

describe("a streamable HTTP MCP server's answer, bounded", () => {
  for (const eventStream of [false, true])
    test(`a 500 MB tool result ${eventStream ? "in one event" : "as a JSON body"} fails the call at ${MCP_MESSAGE_BYTES} bytes, saying so; the server reconnects on the next prompt`, async () => {
      await using big = startBigMcpHttpServer(500 * MB, eventStream);
      writeFileSync(hostSettings, JSON.stringify({ mcpServers: { big: { url: big.url } } }));
      await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
      const { sessionId } = await a.newSession();
      a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__big__big", args: {} }] }, { kind: "text", text: "ok" });
      const started = performance.now();
      const { response, updates } = await a.turn(sessionId, "call the big tool");
      expect(response.stopReason).toBe("end_turn");
      // Failed at the bound at once, not at the call's timeout.
      expect(performance.now() - started).toBeLessThan(30_000);
      const told = toolResults(a.model.requests)[0]!;
      expect(told).toContain(`MCP server big disconnected during the call: it sent a message over the limit: the response passed the limit of ${MCP_MESSAGE_BYTES} bytes`);
      expect(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed")).toBe(true);
      // What the loopback socket buffers took past the bound, not the 500 MB.
      expect(big.sentBytes()).toBeLessThan(MCP_MESSAGE_BYTES + 16 * MB);
      const peak = peakRssMiB(a.proc.pid);
      console.error(`agent peak RSS after a 500 MB MCP result (${eventStream ? "event stream" : "JSON"}): ${peak.toFixed(0)} MiB`);
      expect(peak).toBeLessThan(300);

      a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__big__echo", args: { text: "again" } }] }, { kind: "text", text: "ok" });
      await a.turn(sessionId, "call echo");
      expect(toolResults(a.model.requests).at(-1)).toBe("echo: again");
    });
});

describe("a tool's structured result, checked against its outputSchema", () => {
  test("one that breaks the schema reaches the model as an error saying so; one that keeps it, as is", async () => {
    await using server = startBigMcpHttpServer(0);
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { typed: { url: server.url } } }));
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__typed__measure", args: { text: "lie" } }, { name: "mcp__typed__measure", args: { text: "four" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "measure twice");
    const [lie, kept] = toolResults(a.model.requests);
    expect(lie).toContain("Structured content does not match the tool's output schema");
    expect(kept).toBe('{"length":4}');
  });

  test("a tool whose outputSchema does not compile fails its own calls, saying so; the server's other tools still work", async () => {
    await using server = startBigMcpHttpServer(0);
    writeFileSync(hostSettings, JSON.stringify({ mcpServers: { typed: { url: server.url } } }));
    await using a = await startAgent({ trusted: true, approvalMode: "yolo" });
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "tools", calls: [{ name: "mcp__typed__unusable", args: {} }, { name: "mcp__typed__echo", args: { text: "still here" } }] }, { kind: "text", text: "ok" });
    await a.turn(sessionId, "call both");
    const [unusable, echo] = toolResults(a.model.requests);
    expect(unusable).toContain("the tool's outputSchema cannot be used");
    expect(echo).toBe("echo: still here");
  });
});
