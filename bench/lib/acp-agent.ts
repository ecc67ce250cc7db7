/**
 * An agent measured on its own: `startAgent` spawns `<cmd> --acp` and answers once `initialize` is
 * (collecting the text chunks of its turns), `coldSessionMs` times a daemon spawned cold up to its
 * first `POST /session` answered (the agent child is started by that request).
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import { scratchDir } from "./procs.ts";

export async function startAgent(cmd: string[], workspace: string, env: Record<string, string>) {
  const started = performance.now();
  const proc = Bun.spawn([...cmd, "--acp"], { cwd: workspace, env: { ...process.env, ...env }, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const stdin = new WritableStream<Uint8Array>({
    async write(chunk) {
      proc.stdin.write(chunk);
      await proc.stdin.flush();
    },
  });
  const chunks: Array<{ at: number; text: string }> = [];
  const connection = acp
    .client({ name: "bench" })
    .onNotification("session/update", ({ params }) => {
      const u = params.update;
      if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text !== "") chunks.push({ at: performance.now(), text: u.content.text });
    })
    .connect(acp.ndJsonStream(stdin, proc.stdout));
  await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const initMs = performance.now() - started;
  return {
    proc,
    agent: connection.agent,
    chunks,
    initMs,
    async stop() {
      proc.stdin.end();
      await proc.exited;
    },
  };
}

/** Daemon spawned cold → its first `POST /session` answered (the agent child is started by that request). */
export async function coldSessionMs(cmd: string[], env: Record<string, string>): Promise<number> {
  const workspace = scratchDir("agent-bench-cold");
  const started = performance.now();
  const proc = Bun.spawn([...cmd, "serve", "--port", "0", "--workspace", workspace], { env: { ...process.env, ...env, SVC_HOME: scratchDir("agent-bench-home") }, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  try {
    const reader = proc.stdout.getReader();
    let out = "";
    let url: string | undefined;
    while (!url) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the daemon exited before listening: ${out}`);
      out += new TextDecoder().decode(value);
      url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    }
    const reply = await fetch(`${url}/session`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    if (reply.status !== 200) throw new Error(`POST /session answered ${reply.status}: ${await reply.text()}`);
    return performance.now() - started;
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

