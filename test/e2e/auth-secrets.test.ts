/**
 * A provider key set up through the API (`POST /workspace/auth/provider`) stays secret: after it is
 * set, the model calls of the built-in agent carry it (it arrived on the key descriptor), yet it
 * appears in no log line, no status answer (`/workspace/auth/status`, `/workspace/auth/providers`,
 * `/daemon/status?detail=full`), no settings read (`/workspace/settings`), no answer to the route
 * itself, and in no environment of any process svc started: the agent's and the daemon's
 * `/proc/<pid>/environ`, a command the agent ran (its own, its parent's). A generic third-party
 * agent (the fake agent) does not get it either. The credentials file is 0600 and holds it.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";
import { startMockModel } from "../fixtures/mock-model.ts";
import { approveAsks } from "../helpers/approve-asks.ts";
import { spawnDaemon, type SpawnedDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { childrenOf } from "../helpers/pids.ts";
import { openSse } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "auth-secrets-token";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const TURN_MS = 20_000;

/** The environment block of `pid`, or "" when it cannot be read. */
function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return "";
  }
}

/** `pid` and every live descendant. */
function tree(pid: number): number[] {
  return [pid, ...childrenOf(pid).flatMap(tree)];
}

/** Every answer a client can read about providers, status and settings, concatenated. */
async function readableAnswers(d: SpawnedDaemon): Promise<string> {
  const paths = ["/workspace/auth/status", "/workspace/auth/providers", "/daemon/status?detail=full", "/workspace/settings", "/workspace/env", "/workspace/providers"];
  const texts = await Promise.all(paths.map(async (path) => `${path} ${JSON.stringify((await jsonRequest(d.url, "GET", path, undefined, AUTH)).body)}`));
  expect(texts.every((t) => !t.includes('"code":"'))).toBe(true);
  return texts.join("\n");
}

async function setProvider(d: SpawnedDaemon, baseUrl: string, key: string): Promise<string> {
  const reply = await jsonRequest(d.url, "POST", "/workspace/auth/provider", { providerId: "my-llm", kind: "openai-compatible", baseUrl, models: ["mock-model"], apiKey: key }, AUTH);
  expect(reply.status).toBe(200);
  expect(reply.body).toMatchObject({ providerId: "my-llm", keyStored: true, models: ["mock-model"] });
  return JSON.stringify(reply.body);
}

describe("a provider key set through the API", () => {
  test("reaches the built-in agent's model calls, and no log, answer, settings read or process environment", async () => {
    await using model = startMockModel();
    await using home = tempDir("svc-auth-home-");
    await using ws = tempDir("svc-auth-ws-");
    const key = `sk-api-${randomBytes(12).toString("hex")}`;
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path, "--log-level", "debug"], {
      cwd: ws.path,
      env: { SVC_CLI_ENTRY: undefined, SVC_CLI_ARGS: undefined, SVC_HOME: home.path, SVC_SERVER_TOKEN: TOKEN },
    });
    const answer = await setProvider(d, model.baseUrl, key);
    const file = join(home.path, "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain(key);

    const created = await jsonRequest(d.url, "POST", "/session", {}, AUTH);
    expect(created.status).toBe(200);
    const sessionId = created.body.sessionId as string;
    await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { ...AUTH, "Last-Event-ID": "0" } });
    model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command: "tr '\\0' '\\n' < /proc/$PPID/environ > parent.env; env > own.env; echo $PPID > parent.pid" } }] });
    {
      await using _ = approveAsks(d.url, sessionId, events, AUTH);
      const reply = await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "run it" }] }, AUTH);
      expect(reply.status).toBe(202);
      const end = await events.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId, TURN_MS);
      expect(end.data.stopReason).toBe("end_turn");
    }
    // The API provider is the agent's default model, and its calls carry the stored key.
    expect(model.authorizations[0]).toBe(`Bearer ${key}`);

    const agentPid = Number(readFileSync(join(ws.path, "parent.pid"), "utf8"));
    const pids = tree(d.proc.pid);
    expect(pids).toContain(agentPid);
    const places: Record<string, string> = {
      answer,
      logs: d.stderr(),
      answers: await readableAnswers(d),
      "command's own environment": readFileSync(join(ws.path, "own.env"), "utf8"),
      "command's parent environment": readFileSync(join(ws.path, "parent.env"), "utf8"),
      ...Object.fromEntries(pids.map((pid) => [`/proc/${pid}/environ`, environOf(pid)])),
    };
    expect(places["command's parent environment"]).toContain("PATH="); // the command did read the agent's environment
    expect(environOf(agentPid)).toContain("PATH="); // and the test can read it too
    expect(Object.entries(places).filter(([, text]) => text.includes(key)).map(([where]) => where)).toEqual([]);
  }, 60_000);

  test("does not reach a generic third-party agent's environment", async () => {
    await using home = tempDir("svc-auth-home-");
    await using dir = tempDir("svc-auth-");
    const ws = join(dir.path, "ws");
    mkdirSync(ws);
    const logPath = join(dir.path, "wire.jsonl");
    const key = `sk-api-${randomBytes(12).toString("hex")}`;
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws], {
      cwd: dir.path,
      env: { SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_LOG: logPath, SVC_HOME: home.path, SVC_SERVER_TOKEN: TOKEN },
    });
    await setProvider(d, "http://127.0.0.1:9/v1", key);
    expect((await jsonRequest(d.url, "POST", "/session", {}, AUTH)).status).toBe(200);
    const env = await until(async () => (await readWireLog(logPath)).find((e) => e.event === "env"), 10_000, "the fake agent's environment report");
    expect(env.modelVars).not.toHaveProperty("OPENAI_API_KEY");
    const pids = tree(d.proc.pid);
    expect(pids.length).toBeGreaterThan(1);
    expect(pids.filter((pid) => environOf(pid).includes(key))).toEqual([]);
    expect(d.stderr()).not.toContain(key);
    expect(await readableAnswers(d)).not.toContain(key);
  }, 60_000);
});
