/**
 * What a command the built-in agent runs can read of the keys (issue 22, deliverable 5): `svc
 * serve` (the sources, or the binary under `test:binary`) with the built-in agent and the mock
 * model scripting a shell tool call. The keys reach the agent on an inherited descriptor, not its
 * environment, so the command finds them neither in `/proc/$PPID/environ` (the agent's) nor in the
 * daemon's, nor in its own environment, which also lacks every name on the scrub list; yet the
 * model calls carry them. Run as an ordinary user (where root can switch to one), the command
 * cannot even open the agent's environ or memory (the agent is not dumpable), and the agent's
 * tools still work. A third-party agent still gets its key variable in its environment.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMockModel, type MockModel } from "../fixtures/mock-model.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { readWireLog } from "../fixtures/fake-agent/wire-log.ts";
import { approveAsks } from "../helpers/approve-asks.ts";
import { MAIN_TS, spawnDaemon, svcCommand, type SpawnedDaemon } from "../helpers/daemon.ts";
import { jsonRequest } from "../helpers/json-request.ts";
import { childrenOf, expectPidsGone } from "../helpers/pids.ts";
import { openSse, type SseClient } from "../helpers/sse-client.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

const TURN_MS = 20_000;
const SETPRIV = "/usr/bin/setpriv";
/** `nobody`: an ordinary user, for the run where the agent is not root. */
const NOBODY = 65534;
const AS_NOBODY = [SETPRIV, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--"];
/** Root can switch to `nobody`, and `nobody` can run the target's svc (a checkout in a private directory is out of its reach). */
const canRunAsNobody =
  process.getuid?.() === 0 &&
  existsSync(SETPRIV) &&
  [svcCommand().at(-1)!, MAIN_TS].every((path) => Bun.spawnSync([...AS_NOBODY, "/usr/bin/test", "-r", path]).exitCode === 0);
const secret = () => `s3cr3t-${randomBytes(12).toString("hex")}`;

/** Variables on the scrub list, set in the daemon's environment, each with a value of its own. */
const SCRUBBED = [
  "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET",
  "GH_TOKEN", "GITHUB_TOKEN", "NPM_TOKEN", "NODE_AUTH_TOKEN", "DB_PASSWORD", "SMTP_PASS", "REGISTRY_CREDENTIALS",
];

/** Runs one turn whose model reply is `command` as a shell tool call, approving whatever the agent asks. */
async function shellTurn(d: SpawnedDaemon, model: MockModel, sessionId: string, events: SseClient, command: string): Promise<void> {
  // The tool call only: after its result the mock model answers with text by itself.
  model.enqueue({ kind: "tools", calls: [{ name: "run_shell_command", args: { command } }] });
  await using _ = approveAsks(d.url, sessionId, events);
  const reply = await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "run it" }] });
  expect(reply.status).toBe(202);
  const end = await events.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId, TURN_MS);
  expect(end.data.stopReason).toBe("end_turn");
}

/** The environment block of `pid` as NAME=value lines, or null when this process may not read it. */
function environOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").join("\n");
  } catch {
    return null;
  }
}

describe("the built-in agent's keys, out of its commands' reach", () => {
  test("a command finds no key in its parent's, the daemon's or its own environment, while the model calls carry the keys", async () => {
    await using model = startMockModel();
    await using home = tempDir("svc-secrets-home-");
    await using ws = tempDir("svc-secrets-ws-");
    const openaiKey = secret();
    const providerKey = secret();
    const scrubbed = Object.fromEntries(SCRUBBED.map((name) => [name, secret()]));
    // A second model whose key variable is named in the host settings (not on the scrub list).
    // No automatic title: its model request would take the reply scripted for the next turn.
    writeFileSync(join(home.path, "settings.json"), JSON.stringify({ ui: { autoTitle: false }, model: { providers: [{ id: "extra", baseUrl: model.baseUrl, apiKeyEnv: "MY_PROVIDER_CRED", models: ["m2"] }] } }));
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path, "--log-level", "debug"], {
      cwd: ws.path,
      env: { SVC_CLI_ENTRY: undefined, SVC_CLI_ARGS: undefined, SVC_HOME: home.path, OPENAI_API_KEY: openaiKey, OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model", MY_PROVIDER_CRED: providerKey, ...scrubbed },
    });
    const created = await jsonRequest(d.url, "POST", "/session", {});
    expect(created.status).toBe(200);
    const sessionId = created.body.sessionId as string;
    await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });

    const command = [
      "tr '\\0' '\\n' < /proc/$PPID/environ > parent.env",
      "daemon=$(cut -d' ' -f4 /proc/$PPID/stat)",
      "tr '\\0' '\\n' < /proc/$daemon/environ > daemon.env 2>/dev/null || echo unreadable > daemon.env",
      "env > own.env",
      "echo $PPID > parent.pid",
    ].join("; ");
    await shellTurn(d, model, sessionId, events, command);
    expect(model.authorizations[0]).toBe(`Bearer ${openaiKey}`);

    // The model named by `apiKeyEnv` gets its key too.
    const switched = await jsonRequest(d.url, "POST", `/session/${sessionId}/model`, { modelId: "extra/m2" }, { "X-Svc-Client-Id": created.body.clientId });
    expect(switched.status).toBe(200);
    await shellTurn(d, model, sessionId, events, "true");
    expect(model.authorizations.at(-1)).toBe(`Bearer ${providerKey}`);

    const agentPid = Number(readFileSync(join(ws.path, "parent.pid"), "utf8"));
    expect(childrenOf(d.proc.pid)).toContain(agentPid);
    const values = [openaiKey, providerKey, ...Object.values(scrubbed)];
    const seen = { parent: readFileSync(join(ws.path, "parent.env"), "utf8"), daemon: readFileSync(join(ws.path, "daemon.env"), "utf8"), own: readFileSync(join(ws.path, "own.env"), "utf8") };
    expect(seen.parent).toContain("OPENAI_MODEL=mock-model"); // the command did read the agent's environment
    for (const [where, text] of Object.entries(seen)) expect({ where, found: values.filter((v) => text.includes(v)) }).toEqual({ where, found: [] });
    // The names are gone from the command's environment, and from the agent's (which the test process, as root, reads directly).
    const names = ["OPENAI_API_KEY", "MY_PROVIDER_CRED", ...SCRUBBED];
    const agentEnviron = environOf(agentPid);
    for (const [where, text] of [["own", seen.own], ["parent", seen.parent], ["agent via /proc", agentEnviron ?? ""]] as const)
      expect({ where, names: names.filter((n) => text.split("\n").some((line) => line.startsWith(`${n}=`))) }).toEqual({ where, names: [] });
    if (agentEnviron !== null) expect(values.filter((v) => agentEnviron.includes(v))).toEqual([]);
  }, 60_000);

  test.skipIf(!canRunAsNobody)("as an ordinary user, a command can open neither the agent's environ nor its memory, and grep and detached processes still work", async () => {
    await using model = startMockModel();
    await using dir = tempDir("svc-secrets-");
    const home = join(dir.path, "home");
    const ws = join(dir.path, "ws");
    for (const path of [dir.path, home, ws]) {
      mkdirSync(path, { recursive: true });
      chmodSync(path, 0o777);
    }
    writeFileSync(join(ws, "notes.txt"), "a needle in the notes\n");
    // No automatic title: its model request would take the grep call scripted for the second turn.
    writeFileSync(join(home, "settings.json"), JSON.stringify({ ui: { autoTitle: false } }));
    const key = secret();
    const env = { SVC_CLI_ENTRY: undefined, SVC_CLI_ARGS: undefined, SVC_HOME: home, HOME: home, XDG_CACHE_HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home, XDG_STATE_HOME: home };
    // No PATH: grep runs its built-in engine, a Worker of the non-dumpable agent.
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws], {
      cmd: [...AS_NOBODY, ...svcCommand()],
      cwd: ws,
      env: { ...env, PATH: undefined, OPENAI_API_KEY: key, OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" },
    });
    const created = await jsonRequest(d.url, "POST", "/session", {});
    expect(created.status).toBe(200);
    const sessionId = created.body.sessionId as string;
    await using events = await openSse(`${d.url}/session/${sessionId}/events`, { headers: { "Last-Event-ID": "0" } });
    const command = [
      "/usr/bin/id -u > uid.txt",
      "/bin/cat /proc/$PPID/environ > environ.txt 2>&1",
      "/usr/bin/head -c 1 /proc/$PPID/mem > mem.txt 2>&1",
      "/usr/bin/env -i /usr/bin/setsid /bin/sh -c '/bin/sleep 600 & echo $! > forked.pid' </dev/null >/dev/null 2>&1",
      // Not the last command: the shell waits for it (and so for forked.pid) instead of exec'ing it.
      "echo done > done.txt",
    ].join("; ");
    await shellTurn(d, model, sessionId, events, command);
    expect(readFileSync(join(ws, "uid.txt"), "utf8").trim()).toBe(String(NOBODY));
    for (const file of ["environ.txt", "mem.txt"]) expect(readFileSync(join(ws, file), "utf8")).toContain("Permission denied");
    const forked = Number(readFileSync(join(ws, "forked.pid"), "utf8"));
    expect(forked).toBeGreaterThan(1);
    await expectPidsGone([forked], 5000, "the detached process");
    model.enqueue({ kind: "tools", calls: [{ name: "grep", args: { pattern: "needle" } }] });
    const reply = await jsonRequest(d.url, "POST", `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "search" }] });
    const grep = await events.waitFor("session_update", (f) => f.data.update?.sessionUpdate === "tool_call_update" && f.data.update?.status === "completed" && f.data.update?.rawOutput?.engine !== undefined, TURN_MS);
    expect(grep.data.update.rawOutput).toMatchObject({ matches: 1, engine: "builtin" });
    await events.waitFor("turn_complete", (f) => f.data.promptId === reply.body.promptId, TURN_MS);
    expect(model.authorizations.every((a) => a === `Bearer ${key}`)).toBe(true);
  }, 60_000);

  test("keys too large to hand over refuse the start: 503 agent_start_failed, reason keys_not_delivered, no value in the answer", async () => {
    await using ws = tempDir("svc-secrets-ws-");
    const key = `sk-${"k".repeat(70 * 1024)}`;
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws.path], { cwd: ws.path, env: { SVC_CLI_ENTRY: undefined, SVC_CLI_ARGS: undefined, OPENAI_API_KEY: key, OPENAI_MODEL: "m" } });
    const reply = await jsonRequest(d.url, "POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", reason: "keys_not_delivered", retryable: false });
    expect(reply.body.error).toContain("65536");
    expect(JSON.stringify(reply.body)).not.toContain("kkkkkkkk");
    expect(d.stderr()).not.toContain("agent spawned");
  }, 60_000);

  test("a third-party agent still gets its key variable in its environment", async () => {
    await using dir = tempDir("svc-secrets-");
    const ws = join(dir.path, "ws");
    mkdirSync(ws);
    const logPath = join(dir.path, "wire.jsonl");
    await using d = await spawnDaemon(["--port", "0", "--workspace", ws], {
      cwd: dir.path,
      env: { SVC_CLI_ENTRY: FAKE_AGENT_ENTRY, FAKE_AGENT_LOG: logPath, OPENAI_API_KEY: secret(), AWS_SECRET_ACCESS_KEY: secret() },
    });
    expect((await jsonRequest(d.url, "POST", "/session", {})).status).toBe(200);
    const env = await until(async () => (await readWireLog(logPath)).find((e) => e.event === "env"), 10_000, "the fake agent's environment report");
    expect((env.modelVars as Record<string, string>).OPENAI_API_KEY).toBe("<set>");
    expect(env.svcVars as string[]).not.toContain("SVC_AGENT_KEYS_FD");
  }, 60_000);
});
