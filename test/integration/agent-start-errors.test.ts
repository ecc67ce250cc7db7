/**
 * An agent that cannot start answers with what went wrong, not a generic closed channel: a missing
 * entry script (503 `cli_entry_missing`, checked before anything is spawned), a child that exits or
 * is killed before answering `initialize` (503 `agent_start_failed` with its exit code or signal;
 * its stderr in the daemon log, scrubbed of known secrets, never in the answer), and an
 * `initialize` timeout (504 `init_timeout`, the child stopped with its family). Neither poisons the
 * runtime: once the entry is fixed the next create works without a restart. `GET
 * /workspace/preflight` agrees with the answer.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { fakeAgentDaemon, type FakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { expectPidsGone } from "../helpers/pids.ts";
import { preflightCell } from "../helpers/preflight.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/** An entry script that runs the fake agent (what "fixing the entry" writes). */
const workingEntry = `import ${JSON.stringify(FAKE_AGENT_ENTRY)};\n`;

/** An entry script that appends its pid to `pidFile`, then runs `body`. */
const scriptEntry = (pidFile: string, body: string) => `require("node:fs").appendFileSync(${JSON.stringify(pidFile)}, process.pid + "\\n");\n${body}\n`;

const pidsIn = async (file: string) => (await Bun.file(file).text()).trim().split("\n").map(Number);

/** No agent child was ever spawned (the daemon logs every spawn). */
const spawnedNone = (d: FakeAgentDaemon) => expect(d.logs.filter((line) => line.includes("agent spawned"))).toEqual([]);

describe("a missing entry script", () => {
  test("SVC_CLI_ENTRY naming no file: 503 cli_entry_missing, not retryable, for every create; nothing spawned; preflight agrees; the file appearing fixes it without a restart", async () => {
    await using dir = tempDir("svc-entry-");
    const entry = join(dir.path, "agent.ts");
    await using d = await fakeAgentDaemon([], { env: { SVC_CLI_ENTRY: entry } });

    // A default-session create, a thread create and an attach to the pending default share the answer.
    const replies = await Promise.all([d.json("POST", "/session", {}), d.json("POST", "/session", { sessionScope: "thread" }), d.json("POST", "/session", {})]);
    for (const reply of replies) {
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ code: "cli_entry_missing", errorKind: "missing_binary", reason: "not_found", source: "SVC_CLI_ENTRY", retryable: false });
      expect(reply.body.error).toContain("SVC_CLI_ENTRY");
      expect(reply.body.hint).toContain("SVC_CLI_ENTRY");
      expect(reply.headers.get("retry-after")).toBeNull();
      expect(JSON.stringify(reply.body)).not.toContain(dir.path);
    }
    spawnedNone(d);

    const cell = await preflightCell(d, "cli_entry");
    expect(cell).toMatchObject({ status: "error", errorKind: "missing_binary", reason: "not_found", error: replies[0]!.body.error, hint: replies[0]!.body.hint, detail: { path: entry, source: "SVC_CLI_ENTRY" } });
    expect(await preflightCell(d, "agent_start")).toMatchObject({ status: "error", errorKind: "missing_binary", error: replies[0]!.body.error, detail: { code: "cli_entry_missing" } });

    writeFileSync(entry, workingEntry);
    const created = await d.createSession();
    expect(created.attached).toBe(false);
    expect(await d.waitForAgents(1)).toHaveLength(1);
    expect(await preflightCell(d, "cli_entry")).toMatchObject({ status: "ok", detail: { path: entry, source: "SVC_CLI_ENTRY" } });
    expect(await preflightCell(d, "agent_start")).toBeUndefined();
  });

  test("SVC_CLI_ENTRY naming a directory: reason not_a_file", async () => {
    await using dir = tempDir("svc-entry-");
    const entry = join(dir.path, "agent.ts");
    mkdirSync(entry);
    await using d = await fakeAgentDaemon([], { env: { SVC_CLI_ENTRY: entry } });
    const reply = await d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "cli_entry_missing", reason: "not_a_file", retryable: false });
    spawnedNone(d);
    expect(await preflightCell(d, "cli_entry")).toMatchObject({ status: "error", reason: "not_a_file" });
  });

  // Root reads any file whatever its mode, so the case only exists for an ordinary user.
  test.skipIf(process.getuid?.() === 0)("SVC_CLI_ENTRY naming a file the daemon cannot read: reason unreadable", async () => {
    await using dir = tempDir("svc-entry-");
    const entry = join(dir.path, "agent.ts");
    writeFileSync(entry, workingEntry, { mode: 0o000 });
    await using d = await fakeAgentDaemon([], { env: { SVC_CLI_ENTRY: entry } });
    const reply = await d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "cli_entry_missing", reason: "unreadable", retryable: false });
    spawnedNone(d);
  });
});

describe("a child that ends before answering initialize", () => {
  test("exit 3 after printing its key: 503 agent_start_failed with the code; the stderr line is logged with the key redacted and never answered; fixing the entry recovers", async () => {
    const secret = `sk-svc-start-${crypto.randomUUID()}`;
    await using dir = tempDir("svc-entry-");
    const entry = join(dir.path, "agent.js");
    const pidFile = join(dir.path, "pids");
    writeFileSync(entry, scriptEntry(pidFile, `console.error("agent: login failed for key " + process.env.OPENAI_API_KEY);\nprocess.exit(3);`));
    await using d = await fakeAgentDaemon([], { env: { SVC_CLI_ENTRY: entry, OPENAI_API_KEY: secret } });

    const reply = await d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", exitCode: 3, signalCode: null, retryable: false });
    expect(reply.body.error).toContain("exited with code 3");
    expect(reply.body.hint).toContain("/workspace/preflight");
    expect(reply.body.hint).toContain("daemon log");
    expect(reply.headers.get("retry-after")).toBeNull();
    const body = JSON.stringify(reply.body);
    expect(body).not.toContain(secret);
    expect(body).not.toContain("login failed");
    await expectPidsGone(await pidsIn(pidFile), 3000);

    await until(() => d.logs.some((line) => line.includes("login failed for key [redacted]")), 5000, "the child's stderr line in the log");
    expect(d.logs.filter((line) => line.includes(secret))).toEqual([]);

    expect(await preflightCell(d, "agent_start")).toMatchObject({ status: "error", error: reply.body.error, detail: { code: "agent_start_failed", exitCode: 3, signalCode: null } });

    writeFileSync(entry, workingEntry);
    expect((await d.createSession()).attached).toBe(false);
    expect(await preflightCell(d, "agent_start")).toBeUndefined();
  });

  test("killed by a signal: 503 agent_start_failed naming the signal", async () => {
    await using dir = tempDir("svc-entry-");
    const entry = join(dir.path, "agent.js");
    const pidFile = join(dir.path, "pids");
    writeFileSync(entry, scriptEntry(pidFile, `process.kill(process.pid, "SIGKILL");\nsetInterval(() => {}, 60_000);`));
    await using d = await fakeAgentDaemon([], { env: { SVC_CLI_ENTRY: entry } });

    const reply = await d.json("POST", "/session", { sessionScope: "thread" });
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", exitCode: null, signalCode: "SIGKILL", retryable: false });
    expect(reply.body.error).toContain("killed by SIGKILL");
    await expectPidsGone(await pidsIn(pidFile), 3000);
    expect(await preflightCell(d, "agent_start")).toMatchObject({ detail: { code: "agent_start_failed", signalCode: "SIGKILL" } });
  });
});

describe("an initialize timeout", () => {
  test("504 init_timeout naming the flag; the wedged child and the process it started are stopped; preflight says so", async () => {
    const sleep = Bun.which("sleep");
    if (sleep === null) throw new Error("this test needs `sleep` on PATH");
    await using dir = tempDir("svc-entry-");
    const entry = join(dir.path, "agent.js");
    const pidFile = join(dir.path, "pids");
    // Never answers initialize; leaves a process of its own behind, in a session of its own.
    const body = [
      `const tool = require("node:child_process").spawn(${JSON.stringify(sleep)}, ["300"], { detached: true, stdio: "ignore" });`,
      `require("node:fs").appendFileSync(${JSON.stringify(pidFile)}, tool.pid + "\\n");`,
      `setInterval(() => {}, 60_000);`,
    ].join("\n");
    writeFileSync(entry, scriptEntry(pidFile, body));
    // Long enough for the child to start its tool even on a loaded machine.
    await using d = await fakeAgentDaemon(["--initialize-timeout-ms", "2000"], { env: { SVC_CLI_ENTRY: entry } });

    const reply = await d.json("POST", "/session", {});
    expect(reply.status).toBe(504);
    expect(reply.body).toMatchObject({ code: "init_timeout", errorKind: "init_timeout", timeoutMs: 2000, retryable: true });
    expect(reply.body.error).toContain("--initialize-timeout-ms");
    expect(reply.body.hint).toContain("--initialize-timeout-ms");
    expect(reply.headers.get("retry-after")).toBe("5");
    const pids = await until(async () => {
      const seen = await pidsIn(pidFile);
      return seen.length === 2 ? seen : null;
    }, 5000, "the child and its tool");
    await expectPidsGone(pids, 5000, "the wedged child and its tool");
    expect(await preflightCell(d, "agent_start")).toMatchObject({ status: "error", errorKind: "init_timeout", detail: { code: "init_timeout" } });
  });
});
