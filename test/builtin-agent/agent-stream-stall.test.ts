/** A model stream that stalls (hostile review finding 10) ends the turn after the configured idle timeout, saying so. */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../helpers/until.ts";
import { rpcError, startAgent } from "./agent-client.ts";

const hostSettings = join(process.env.SVC_HOME!, "settings.json");
afterEach(() => rmSync(hostSettings, { force: true }));

describe("model stream stall", () => {
  test("one chunk then silence: the turn fails with model_stream_interrupted naming the stall, the request is dropped, and the session stays usable", async () => {
    writeFileSync(hostSettings, JSON.stringify({ model: { streamIdleTimeoutMs: 300 } }));
    await using a = await startAgent();
    const { sessionId } = await a.newSession();
    a.model.enqueue({ kind: "hang", text: "partial" });
    const data = (await rpcError(a.prompt(sessionId, "hi"))).data as { details: string; errorKind?: string };
    expect(data.errorKind).toBe("model_stream_interrupted");
    expect(data.details).toContain("stalled: nothing arrived for 300 ms");
    await a.turn(sessionId, "again");
    expect(a.agentText(sessionId)).toEndWith("mock reply: again");
    await until(() => a.model.hangingStreams() === 0, 5000, "the stalled request to be dropped");
  });
});
