/**
 * Example: send one prompt to a svc daemon with the client SDK and print the agent's reply as it
 * streams. Run it with Bun, or with Node 22.6+ (type stripping):
 *
 *   bun examples/client-prompt.ts "Say hello"
 *   node --experimental-strip-types examples/client-prompt.ts "Say hello"
 *
 * Environment: SVC_URL (default http://127.0.0.1:4170), SVC_SERVER_TOKEN (when the daemon has one).
 */
import { createClient, DaemonApiError } from "../src/client/index.ts";

const text = process.argv[2] ?? "Hello";
const client = createClient({ baseUrl: process.env.SVC_URL ?? "http://127.0.0.1:4170", token: process.env.SVC_SERVER_TOKEN });

try {
  const { sessionId } = await client.createSession({ sessionScope: "thread" });
  // A fresh thread session: the first turn to end is this prompt's.
  const finished = new Promise<string>((resolve, reject) => {
    const subscription = client.subscribe(sessionId, {
      onEvent(event) {
        const update = event.data?.update;
        if (event.type === "session_update" && update?.sessionUpdate === "agent_message_chunk" && update.content?.type === "text") {
          process.stdout.write(update.content.text);
        }
        if (event.type === "turn_complete" || event.type === "turn_error") {
          subscription.close();
          if (event.type === "turn_complete") resolve(event.data.stopReason);
          else reject(new Error(event.data.message));
        }
      },
      onError: reject,
    });
  });
  await client.prompt(sessionId, text);
  const stopReason = await finished;
  process.stdout.write(`\n[${stopReason}]\n`);
  await client.closeSession(sessionId);
} catch (error) {
  console.error(error instanceof DaemonApiError ? `daemon error ${error.status} ${error.code ?? ""}: ${error.message}` : error);
  process.exitCode = 1;
}
