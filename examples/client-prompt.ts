/**
 * Example: send one prompt to a svc daemon with the client SDK, print the agent's reply as it
 * streams, its tool calls as they start and end, and each permission request it makes, and answer
 * those requests. Run it with Bun, or with Node 22.6+ (type stripping):
 *
 *   bun examples/client-prompt.ts "Say hello"
 *   node --experimental-strip-types examples/client-prompt.ts "Say hello"
 *
 * Permission requests are answered:
 *   - by default, from stdin: the options are listed and one line is read (its number, or `c` to
 *     cancel); when stdin is closed or at its end, the request is cancelled, so nothing waits unseen;
 *   - with `--approve`, by the first "allow" option; with `--deny`, by the first "reject" option.
 *
 * Environment: SVC_URL (default http://127.0.0.1:4170), SVC_SERVER_TOKEN (when the daemon has one).
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { createClient, DaemonApiError, type PermissionOutcome } from "../src/client/index.ts";

interface PermissionOption {
  optionId: string;
  name: string;
  kind: string;
}

const { values, positionals } = parseArgs({ options: { approve: { type: "boolean" }, deny: { type: "boolean" } }, allowPositionals: true });
const text = positionals[0] ?? "Hello";
const client = createClient({ baseUrl: process.env.SVC_URL ?? "http://127.0.0.1:4170", token: process.env.SVC_SERVER_TOKEN });

/** Lines of stdin, read only once a permission request needs one. */
let stdinLines: AsyncIterator<string> | null = null;
async function readAnswer(): Promise<string | null> {
  stdinLines ??= createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
  const next = await stdinLines.next();
  return next.done ? null : next.value.trim();
}

/** The answer to one permission request, by flag or from stdin. */
async function answer(options: PermissionOption[]): Promise<PermissionOutcome> {
  const byKind = (prefix: string) => options.find((o) => o.kind.startsWith(prefix));
  const flagged = values.approve ? byKind("allow") : values.deny ? byKind("reject") : undefined;
  if (flagged) {
    process.stdout.write(`  answered: ${flagged.name}\n`);
    return { outcome: "selected", optionId: flagged.optionId };
  }
  if (values.approve || values.deny) {
    process.stdout.write(`  no ${values.approve ? "allow" : "reject"} option: cancelled\n`);
    return { outcome: "cancelled" };
  }
  for (;;) {
    process.stdout.write(`  answer [1-${options.length}, c to cancel]: `);
    const line = await readAnswer();
    if (line === null) {
      process.stdout.write("\n  no answer on stdin: cancelled\n");
      return { outcome: "cancelled" };
    }
    if (line === "c") return { outcome: "cancelled" };
    const picked = options[Number(line) - 1];
    if (/^\d+$/.test(line) && picked) return { outcome: "selected", optionId: picked.optionId };
  }
}

try {
  const { sessionId } = await client.createSession({ sessionScope: "thread" });
  // Answers go out one at a time, in the order the requests came.
  let answering = Promise.resolve();
  // Updates of a tool call may omit its title: it is kept from the call's start.
  const toolTitles = new Map<string, string>();
  // A fresh thread session: the first turn to end is this prompt's.
  const finished = new Promise<string>((resolve, reject) => {
    const subscription = client.subscribe(sessionId, {
      onEvent(event) {
        const update = event.data?.update;
        if (event.type === "session_update" && update?.sessionUpdate === "agent_message_chunk" && update.content?.type === "text") {
          process.stdout.write(update.content.text);
        }
        if (event.type === "session_update" && update?.sessionUpdate === "tool_call") {
          toolTitles.set(update.toolCallId, update.title);
          process.stdout.write(`\n[tool] ${update.title} (${update.kind ?? "other"}): ${update.status ?? "pending"}\n`);
        }
        if (event.type === "session_update" && update?.sessionUpdate === "tool_call_update" && (update.status === "completed" || update.status === "failed")) {
          process.stdout.write(`[tool] ${update.title ?? toolTitles.get(update.toolCallId) ?? update.toolCallId}: ${update.status}\n`);
        }
        if (event.type === "permission_request") {
          const { requestId, toolCall, options } = event.data as { requestId: string; toolCall: { title?: string }; options: PermissionOption[] };
          answering = answering.then(async () => {
            process.stdout.write(`\n[permission] ${toolCall.title ?? "a tool call"}\n`);
            options.forEach((o, i) => process.stdout.write(`  ${i + 1}) ${o.name} (${o.kind})\n`));
            await client.vote(sessionId, requestId, await answer(options));
          });
          answering.catch(reject);
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
} finally {
  // An open stdin reader would keep the process alive.
  process.stdin.destroy();
}
