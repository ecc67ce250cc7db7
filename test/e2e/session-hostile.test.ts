/**
 * Hostile session input against the compiled binary (with the fake agent as its child): prompt
 * content nested 50,000 levels deep, blocks that are not content blocks, and bodies that are not
 * JSON objects are refused before anything is queued; the daemon keeps serving and
 * `pending-prompts` keeps answering.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { buildBinary, type BuiltBinary } from "../helpers/build-binary.ts";
import { REPO_ROOT, spawnDaemon } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

let binary: BuiltBinary;
beforeAll(async () => {
  binary = await buildBinary();
}, 120_000);
afterAll(() => binary?.[Symbol.asyncDispose]());

const json = (body: string) => ({ method: "POST", headers: { "Content-Type": "application/json" }, body });

test("deep, malformed and non-object session bodies are 4xx and the daemon carries on", async () => {
  await using cwd = tempDir();
  await using ws = tempDir("svc-ws-");
  const env = { SVC_CLI_ENTRY: join(REPO_ROOT, "test/fixtures/fake-agent.ts") };
  await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cmd: [binary.path], cwd: cwd.path, env });
  for (const body of ["[1,2]", '"str"', "123", "null"]) expect((await d.fetch("/session", json(body))).status).toBe(400);
  const created = await d.fetch("/session", json("{}"));
  expect(created.status).toBe(200);
  const { sessionId } = (await created.json()) as { sessionId: string };
  const promptUrl = `/session/${sessionId}/prompt`;
  const running = await d.fetch(promptUrl, json(JSON.stringify({ prompt: [{ type: "text", text: "@hang" }] })));
  expect(running.status).toBe(202);

  const deep = "[".repeat(50_000) + "]".repeat(50_000);
  const hostile = [
    `{"prompt":[{"type":"text","text":"hi","_meta":{"x":${deep}}}]}`,
    `{"prompt":[{"type":"video","data":"x","mimeType":"video/mp4"}]}`,
    `{"prompt":[{"type":"image","data":"aGk="}]}`,
    "[]",
  ];
  for (const body of hostile) {
    const res = await d.fetch(promptUrl, json(body));
    expect({ body: body.slice(0, 60), status: res.status }).toEqual({ body: body.slice(0, 60), status: 400 });
    expect(await res.json()).toMatchObject({ error: expect.any(String) });
  }
  const pending = await d.fetch(`/session/${sessionId}/pending-prompts`);
  expect(pending.status).toBe(200);
  expect(((await pending.json()) as { pendingPrompts: unknown[] }).pendingPrompts).toHaveLength(1);
  expect((await d.fetch("/health")).status).toBe(200);
  expect((await d.fetch(`/session/${sessionId}`, { method: "DELETE" })).status).toBe(204);
  expect(d.proc.exitCode).toBeNull();
  expect(d.stderr()).not.toMatch(/unhandled|RangeError|Maximum call stack/i);
});
