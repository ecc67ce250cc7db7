/**
 * The interop scenario, the same for every agent: a daemon whose agent child is the real agent,
 * pointed at a loopback mock model in the agent's dialect, with a scratch HOME (and XDG dirs) so
 * nothing touches the real home. Steps, one test each, in order:
 * initialize + `session/new` (POST /session), a prompt whose streamed text reaches SSE, a tool call
 * that needs permission voted through the HTTP route and ending in `turn_complete`, the cancel of a
 * slow turn, close, and no process of the agent's family left once the daemon stops.
 *
 * The daemon runs `--agent <name>`, each installable agent from its `.interop/` install
 * (`install-agents.ts`). Each agent's file (`<agent>.interop.ts`) gives its env and config files,
 * its write tool call and its allow-once option; `run-interop.ts` runs every file and prints one
 * line per agent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ANSWER_TEXT, startMockModel, type MockModel, type WriteCall } from "../fixtures/mock-model.ts";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";
import { childrenOf, expectPidsGone } from "../helpers/pids.ts";
import { openSse, type SseFrame } from "../helpers/sse-client.ts";
import { tempDir, type TempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/until.ts";
import { isInstallable, type AgentName } from "../../src/config/agent-catalog.ts";
import { interopEntry } from "./install-agents.ts";

/** A step's bound: real agents on two shared cores start slowly (opencode's first session/new took ~12 s). */
export const TURN_MS = 60_000;
/** What the mock writes through the agent's write tool. */
const WRITTEN = "hello from mock\n";

/** Where an agent's scratch state lives, made fresh for each run. */
export interface ScratchDirs {
  readonly mock: MockModel;
  readonly workspace: string;
  /** HOME of the daemon and the agent; XDG_CONFIG_HOME/XDG_DATA_HOME/XDG_CACHE_HOME/XDG_STATE_HOME are under it. */
  readonly home: string;
}

export interface InteropAgentCase {
  /** The daemon runs `--agent <name>`; an installable agent's entry is its `.interop/` install (settings `agents.<name>.path`). */
  readonly name: Exclude<AgentName, "generic">;
  /** The agent's env beyond the scratch HOME/XDG; may write config files. */
  setup(dirs: ScratchDirs): Record<string, string>;
  /** The model-side call of the agent's own write tool (the mock answers `please write <path>` with it). */
  readonly writeCall: WriteCall;
  /** The option id that allows the write once, picked from the permission request's options. */
  allowOnce(options: Array<{ optionId: string; kind: string }>): string;
}

const post = (daemon: TestDaemon, path: string, body: unknown) =>
  daemon.fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

/** Every pid under `root`, itself included, as of now. */
function family(root: number): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...childrenOf(out[i]!));
  return out;
}

const isText = (f: SseFrame) => f.event === "session_update" && f.data.update?.sessionUpdate === "agent_message_chunk";

export function interopScenario(agent: InteropAgentCase): void {
  let mock: MockModel;
  let ws: TempDir;
  let home: TempDir;
  let daemon: TestDaemon;
  let sessionId = "";
  /** Every pid of the agent's family seen while it ran. */
  const seen = new Set<number>();

  const observeFamily = async () => {
    const status = await (await daemon.fetch("/daemon/status")).json();
    for (const pid of status.runtime.channel.childPids as number[]) for (const p of family(pid)) seen.add(p);
  };

  beforeAll(async () => {
    mock = startMockModel({ writeCall: agent.writeCall });
    ws = tempDir(`svc-interop-${agent.name}-ws-`);
    home = tempDir(`svc-interop-${agent.name}-home-`);
    const xdg = { XDG_CONFIG_HOME: ".config", XDG_DATA_HOME: ".local/share", XDG_CACHE_HOME: ".cache", XDG_STATE_HOME: ".local/state" };
    const xdgEnv = Object.fromEntries(Object.entries(xdg).map(([k, v]) => [k, join(home.path, v)]));
    for (const dir of Object.values(xdgEnv)) mkdirSync(dir, { recursive: true });
    const env = agent.setup({ mock, workspace: ws.path, home: home.path });
    const svcHome = join(home.path, ".svc-data");
    mkdirSync(svcHome, { recursive: true });
    if (isInstallable(agent.name)) writeFileSync(join(svcHome, "settings.json"), JSON.stringify({ agents: { [agent.name]: { path: interopEntry(agent.name) } } }));
    daemon = await startDaemon(["--agent", agent.name, "--initialize-timeout-ms", String(TURN_MS)], {
      workspace: ws.path,
      env: { PATH: process.env.PATH, HOME: home.path, SVC_HOME: svcHome, ...xdgEnv, ...env },
    });
  }, TURN_MS);

  afterAll(async () => {
    await daemon?.[Symbol.asyncDispose]();
    await mock?.[Symbol.asyncDispose]();
    await home?.[Symbol.asyncDispose]();
    await ws?.[Symbol.asyncDispose]();
  });

  describe(`agent ${agent.name} behind svc`, () => {
    test("initialize and session/new", async () => {
      const created = await post(daemon, "/session", {});
      const body = await created.json();
      expect({ status: created.status, body }).toMatchObject({ status: 200, body: { attached: false, workspaceCwd: ws.path } });
      sessionId = body.sessionId;
      const env = await (await daemon.fetch("/workspace/env")).json();
      expect(env.initialized).toBe(true);
      await observeFamily();
    }, TURN_MS);

    test("a prompt's streamed text reaches SSE and the turn completes", async () => {
      await using sse = await openSse(`${daemon.url}/session/${sessionId}/events`);
      const admitted = await (await post(daemon, `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "please answer" }] })).json();
      const done = await sse.waitFor("turn_complete", (f) => f.envelope.promptId === admitted.promptId, TURN_MS);
      expect(done.data.stopReason).toBe("end_turn");
      const text = sse.frames.filter(isText).map((f) => f.data.update.content?.text ?? "").join("");
      expect(text).toContain(ANSWER_TEXT);
      await observeFamily();
    }, TURN_MS);

    test("a write asks for permission, the HTTP vote lets it through, the turn completes", async () => {
      const target = join(ws.path, "hello.txt");
      await using sse = await openSse(`${daemon.url}/session/${sessionId}/events`);
      const admitted = await (await post(daemon, `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: `please write ${target}` }] })).json();
      const request = await sse.waitFor("permission_request", undefined, TURN_MS);
      await observeFamily();
      const optionId = agent.allowOnce(request.data.options);
      const vote = await post(daemon, `/session/${sessionId}/permission/${request.data.requestId}`, { outcome: { outcome: "selected", optionId } });
      expect(vote.status).toBe(200);
      await sse.waitFor("permission_resolved", undefined, TURN_MS);
      const done = await sse.waitFor("turn_complete", (f) => f.envelope.promptId === admitted.promptId, TURN_MS);
      expect(done.data.stopReason).toBe("end_turn");
      expect(readFileSync(target, "utf8")).toBe(WRITTEN);
    }, TURN_MS);

    test("a slow turn is cancelled through the HTTP route", async () => {
      await using sse = await openSse(`${daemon.url}/session/${sessionId}/events`);
      // ~60 s of streaming unless cancelled; the turn ends well before.
      const admitted = await (await post(daemon, `/session/${sessionId}/prompt`, { prompt: [{ type: "text", text: "please stream slowly" }] })).json();
      await sse.waitFor("session_update", (f) => isText(f) && f.envelope.promptId === admitted.promptId, TURN_MS);
      expect((await post(daemon, `/session/${sessionId}/cancel`, {})).status).toBe(204);
      const done = await sse.waitFor("turn_complete", (f) => f.envelope.promptId === admitted.promptId, TURN_MS);
      expect(done.data.stopReason).toBe("cancelled");
    }, TURN_MS);

    test("close, then no process of the agent's family is left once the daemon stops", async () => {
      await observeFamily();
      expect((await daemon.fetch(`/session/${sessionId}`, { method: "DELETE" })).status).toBe(204);
      await until(async () => (await daemon.fetch(`/session/${sessionId}/status`)).status === 404, 10_000, "the session to be gone");
      await daemon.stop();
      await expectPidsGone([...seen], 10_000, `${agent.name}'s processes`);
    }, TURN_MS);
  });
}
