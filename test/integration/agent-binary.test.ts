/**
 * The compiled binary with nothing else installed: no SVC_CLI_ENTRY, so the daemon's agent child is
 * the binary itself with `--acp`. A write turn that waits for a permission vote, end to end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel } from "../fixtures/mock-model.ts";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { spawnDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";

let binary: BuiltBinary;
beforeAll(async () => {
  binary = await buildBinary();
}, 120_000);
afterAll(() => binary?.[Symbol.asyncDispose]());

describe("compiled binary, built-in agent", () => {
  test("writes a file after a permission vote, with no SVC_CLI_ENTRY set", async () => {
    await using model = startMockModel();
    await using cwd = tempDir();
    await using ws = tempDir("svc-ws-");
    mkdirSync(join(ws.path, ".svc"));
    writeFileSync(join(ws.path, ".svc", "settings.json"), JSON.stringify({ tools: { approvalMode: "default" } }));
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], {
      cmd: [binary.path],
      cwd: cwd.path,
      env: { SVC_CLI_ENTRY: undefined, SVC_CLI_ARGS: undefined, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" },
    });
    const created = await jsonRequest(d.url, "POST", "/session", {});
    expect(created.status).toBe(200);
    const sessionId = created.body.sessionId as string;
    await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
    const target = join(ws.path, "hello.txt");
    const admitted = await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `please write ${target}` }] });
    expect(admitted.status).toBe(202);
    const ask = await events.waitFor("permission_request", undefined, 15_000);
    expect(ask.data.toolCall.content[0]).toMatchObject({ type: "diff", path: target, oldText: null, newText: "hello from mock\n" });
    const vote = await jsonRequest(d.url, "POST", `/session/${sessionId}/permission/${ask.data.requestId}`, { outcome: { outcome: "selected", optionId: "proceed_once" } });
    expect(vote.status).toBe(200);
    const done = await events.waitFor("turn_complete", (f) => f.data.promptId === admitted.body.promptId, 15_000);
    expect(done.data.stopReason).toBe("end_turn");
    expect(readFileSync(target, "utf8")).toBe("hello from mock\n");
    // A graceful stop, so the daemon stops its agent child rather than leaving it to notice EOF.
    d.proc.kill("SIGTERM");
    expect(await d.proc.exited).toBe(0);
  });
});
