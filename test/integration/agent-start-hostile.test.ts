/**
 * Agents that start badly on purpose (the hostile review of the agent-start errors): every one ends
 * in a clear, non-500 answer that is not retried forever, its child stopped, the failure shown in
 * `GET /workspace/preflight`, and nothing the agent wrote (its keys, its `data`) passed through raw.
 * Each agent is a small script run as SVC_CLI_ENTRY that records its pid.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { openSession, untilTurnEnds } from "../helpers/prompt-session.ts";
import { expectPidsGone } from "../helpers/pids.ts";
import { preflightCell } from "../helpers/preflight.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";

/**
 * An agent script: records its pid in `pids`, then answers each request line with `answer(m)`
 * (a JSON-RPC message object, or nothing), written as one line.
 */
function agentScript(pidFile: string, answer: string, extra = ""): string {
  return [
    `require("node:fs").appendFileSync(${JSON.stringify(pidFile)}, process.pid + "\\n");`,
    `const w = (o) => process.stdout.write(JSON.stringify(o) + "\\n");`,
    `const answer = ${answer};`,
    `require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => { const m = JSON.parse(l); const a = answer(m); if (a) w(a); });`,
    extra,
  ].join("\n");
}

/** The initialize result a well-behaved agent gives. */
const GOOD_INIT = `{ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }`;

async function scripted(answer: string, extra = "", args: string[] = [], env: Record<string, string> = {}) {
  const dir = tempDir("svc-hostile-start-");
  const entry = join(dir.path, "agent.js");
  const pidFile = join(dir.path, "pids");
  writeFileSync(entry, agentScript(pidFile, answer, extra));
  const d = await fakeAgentDaemon(args, { env: { SVC_CLI_ENTRY: entry, ...env } });
  const pids = async () => {
    const text = await Bun.file(pidFile).text().catch(() => "");
    return text.trim().split("\n").filter(Boolean).map(Number);
  };
  return {
    d,
    pids,
    async [Symbol.asyncDispose]() {
      await d[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

describe.concurrent("an initialize result that is not one", () => {
  for (const [label, result] of [
    ["null", "null"],
    ["a string", `"garbage"`],
  ] as const)
    test(`result ${label}: every create is 503 agent_start_failed (invalid_initialize_result, not retryable); no child is leaked; preflight says so`, async () => {
      // Also deaf to SIGTERM, as the reviewer's agent was.
      await using s = await scripted(`(m) => m.method === "initialize" ? { jsonrpc: "2.0", id: m.id, result: ${result} } : null`, `process.on("SIGTERM", () => {});`);
      for (let i = 0; i < 3; i++) {
        const reply = await s.d.json("POST", "/session", {});
        expect(reply.status).toBe(503);
        expect(reply.body).toMatchObject({ code: "agent_start_failed", reason: "invalid_initialize_result", errorKind: "protocol_error", retryable: false });
        expect(reply.body.error).toContain("invalid result");
      }
      const pids = await s.pids();
      expect(pids).toHaveLength(3);
      await expectPidsGone(pids, 3000, "every child of a failed start");
      expect(await preflightCell(s.d, "agent_start")).toMatchObject({ status: "error", detail: { code: "agent_start_failed" } });
      expect(s.d.logs.filter((l) => l.includes("TypeError"))).toEqual([]);
    });
});

describe.concurrent("an agent's initialize error carrying a key", () => {
  test("503 agent_start_failed with the message redacted, no `data`, not retryable; preflight redacted too", async () => {
    const secret = `sk-hostile-${crypto.randomUUID()}`;
    await using s = await scripted(
      `(m) => m.method === "initialize" ? { jsonrpc: "2.0", id: m.id, error: { code: -32000, message: "invalid api key " + process.env.OPENAI_API_KEY, data: { key: process.env.OPENAI_API_KEY } } } : null`,
      "",
      [],
      { OPENAI_API_KEY: secret },
    );
    const reply = await s.d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", reason: "initialize_error", agentCode: -32000, retryable: false });
    expect(reply.body.error).toContain("invalid api key [redacted]");
    expect(reply.body.data).toBeUndefined();
    expect(JSON.stringify(reply.body)).not.toContain(secret);
    const cell = await preflightCell(s.d, "agent_start");
    expect(cell).toMatchObject({ status: "error", error: reply.body.error, detail: { code: "agent_start_failed" } });
    expect(JSON.stringify(cell)).not.toContain(secret);
    await expectPidsGone(await s.pids(), 3000);
  });
});

describe.concurrent("an agent that dies before its first session opened", () => {
  test("exit right after initialize: 503 agent_start_failed with the exit code (phase session/new), not retryable, no Retry-After; preflight says so", async () => {
    await using s = await scripted(`(m) => { if (m.method !== "initialize") return null; setTimeout(() => process.exit(0), 50); return { jsonrpc: "2.0", id: m.id, result: ${GOOD_INIT} }; }`);
    const reply = await s.d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", reason: "exited", phase: "session/new", exitCode: 0, signalCode: null, retryable: false });
    expect(reply.headers.get("retry-after")).toBeNull();
    expect(await preflightCell(s.d, "agent_start")).toMatchObject({ status: "error", error: reply.body.error, detail: { code: "agent_start_failed", exitCode: 0 } });
    await expectPidsGone(await s.pids(), 3000);
  });

  test("session/new never answered: 504 agent_timeout with retryable, Retry-After and a hint naming the flag, like an initialize timeout; preflight says so", async () => {
    await using s = await scripted(`(m) => m.method === "initialize" ? { jsonrpc: "2.0", id: m.id, result: ${GOOD_INIT} } : null`, "", ["--initialize-timeout-ms", "1500"]);
    const reply = await s.d.json("POST", "/session", {});
    expect(reply.status).toBe(504);
    expect(reply.body).toMatchObject({ code: "agent_timeout", errorKind: "init_timeout", retryable: true, timeoutMs: 1500 });
    expect(reply.body.hint).toContain("--initialize-timeout-ms");
    expect(reply.headers.get("retry-after")).toBe("5");
    expect(await preflightCell(s.d, "agent_start")).toMatchObject({ status: "error", errorKind: "init_timeout", detail: { code: "agent_timeout" } });
  });
});

describe.concurrent("an agent the daemon cuts off", () => {
  test("400 non-JSON stdout lines before answering initialize: the answer says the daemon stopped it for flooding stdout", async () => {
    await using s = await scripted(`() => null`, `for (let i = 0; i < 400; i++) process.stdout.write("not json " + i + "\\n");\nsetInterval(() => {}, 60_000);`);
    const reply = await s.d.json("POST", "/session", {});
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "agent_start_failed", reason: "output_rejected", retryable: false });
    expect(reply.body.error).toContain("daemon stopped the agent");
    expect(reply.body.error).toContain("flooded stdout");
    expect(reply.body.error).not.toContain("closed its output");
    await expectPidsGone(await s.pids(), 3000);
  });
});

describe.concurrent("the daemon shutting down while an agent starts", () => {
  test("the waiting create is answered 503 daemon_shutting_down (not retryable), the child is killed, the stop does not wait for initialize", async () => {
    await using s = await scripted(`() => null`, `setInterval(() => {}, 60_000);`, ["--initialize-timeout-ms", "60000"]);
    const pending = s.d.json("POST", "/session", {});
    const [pid] = await until(async () => {
      const pids = await s.pids();
      return pids.length > 0 ? pids : null;
    }, 10_000, "the starting child");
    await s.d.stop();
    const reply = await pending;
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ code: "daemon_shutting_down", retryable: false });
    await expectPidsGone([pid!], 2000, "the starting child");
  });
});

describe.concurrent("an agent's error answer to a later request", () => {
  test("known secrets are replaced in its message and its data (turn_error), like in its stderr", async () => {
    const secret = `sk-hostile-${crypto.randomUUID()}`;
    await using d = await fakeAgentDaemon([], { env: { OPENAI_API_KEY: secret } });
    await using s = await openSession(d);
    await using sse = await s.events();
    const withDetails = (await s.prompt(`@error -32000 bad key ${secret} :: details ${secret}`)).body.promptId;
    expect((await untilTurnEnds(sse, withDetails)).at(-1)!.data).toMatchObject({ message: "details [redacted]", code: "-32000" });
    const plain = (await s.prompt(`@error -32000 bad key ${secret}`)).body.promptId;
    const end = (await untilTurnEnds(sse, plain)).at(-1)!;
    expect(end.data).toMatchObject({ message: expect.stringContaining("bad key [redacted]"), code: "-32000" });
    expect(JSON.stringify(end.data)).not.toContain(secret);
  });
});
