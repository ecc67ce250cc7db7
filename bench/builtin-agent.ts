/**
 * The built-in agent's start (issue 23, 4), on the compiled binary against the mock model
 * (`test/fixtures/mock-model.ts`): spawn of `svc --acp` → `initialize` answered; its idle RSS once it
 * has answered `initialize` and `session/new` (the agent a daemon starts and a client has not
 * prompted yet: the target), and again after a few turns (context: the first prompt loads the ACP
 * SDK app, the model client and the tools); and a daemon spawned cold → its first `POST /session`
 * answered, the built-in agent started by that request. Medians over runs. `bench/agent.ts` has the fuller
 * comparison with the reference agent.
 */
import { startMockModel } from "../test/fixtures/mock-model.ts";
import { coldSessionMs, startAgent } from "./lib/acp-agent.ts";
import { scratchDir } from "./lib/procs.ts";
import { residentMemory } from "./lib/rss.ts";
import { median } from "./lib/stats.ts";

/** Turns the agent takes before its RSS is read again. */
const TURNS = 3;

export interface BuiltinAgentResult {
  readonly runs: number;
  readonly initMedianMs: number;
  /** After `initialize` and `session/new`, before any prompt. */
  readonly idleRssMb: number;
  /** After TURNS turns of that session. */
  readonly afterTurnsRssMb: number;
  readonly firstSessionMedianMs: number;
}

export async function measureBuiltinAgent(binary: string, runs: number, settleMs: number): Promise<BuiltinAgentResult> {
  const model = startMockModel();
  try {
    const workspace = scratchDir("builtin-agent-ws");
    const env = { HOME: scratchDir("builtin-agent-home"), SVC_HOME: scratchDir("builtin-agent-svc-home"), OPENAI_API_KEY: "bench", OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: "mock-model" };
    const inits: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const agent = await startAgent([binary], workspace, env);
      if (i > 0) inits.push(agent.initMs); // the first run puts the executable in the page cache
      await agent.stop();
    }
    const agent = await startAgent([binary], workspace, env);
    let idleRssMb: number;
    let afterTurnsRssMb: number;
    const settledRss = async () => {
      await Bun.sleep(settleMs);
      const resident = residentMemory(agent.proc.pid);
      if (resident === null) throw new Error("cannot read the agent's VmRSS from /proc (not Linux?)");
      return resident.rssMb;
    };
    try {
      const { sessionId } = await agent.agent.request("session/new", { cwd: workspace, mcpServers: [] });
      idleRssMb = await settledRss();
      for (let i = 0; i < TURNS; i++) await agent.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `turn ${i}` }] });
      afterTurnsRssMb = await settledRss();
    } finally {
      await agent.stop();
    }
    const colds: number[] = [];
    for (let i = 0; i < runs; i++) colds.push(await coldSessionMs([binary], env));
    return { runs, initMedianMs: median(inits), idleRssMb, afterTurnsRssMb, firstSessionMedianMs: median(colds) };
  } finally {
    await model[Symbol.asyncDispose]();
  }
}
