/**
 * The floor of the fan-out: a bare `Bun.serve` that speaks just enough of svc's API for
 * `bench/fanout.ts` (one session; `@stream <n> <ms>` prompts; the `/daemon/status` fields the
 * bench reads) and fans each event out the way svc's writer does, with nothing else: the frame
 * encoded once and handed to every subscriber's pulled stream (high water mark 0, the frames that
 * came while the socket was busy joined into one chunk). No journal, no agent, no bounds. Compiled
 * with `bun build --compile` in the bench's run. (A Bun direct stream written at once per frame
 * measured costlier under load: it never batches.)
 */
const SESSION = "bare-session";
const encoder = new TextEncoder();

/** One subscriber: frames not yet handed to its stream, and the pull waiting for them. */
interface Subscriber {
  queue: Uint8Array[];
  waiter: (() => void) | null;
}
const subscribers = new Set<Subscriber>();
let lastId = 0;

function publish(type: string, data: unknown, promptId: string): void {
  const id = ++lastId;
  const json = JSON.stringify({ id, v: 1, type, data, promptId, _meta: { serverTimestamp: Date.now() } });
  const frame = encoder.encode(`id: ${id}\nevent: ${type}\ndata: ${json}\n\n`);
  for (const sub of subscribers) {
    sub.queue.push(frame);
    const waiter = sub.waiter;
    sub.waiter = null;
    waiter?.();
  }
}

const update = (sessionUpdate: string, text: string) => ({ sessionId: SESSION, update: { sessionUpdate, content: { type: "text", text } } });

async function stream(text: string, promptId: string): Promise<void> {
  const [, n = "1", ms = "0"] = text.split(/\s+/);
  publish("session_update", update("user_message_chunk", text), promptId);
  for (let i = 1; i <= Number(n); i++) {
    await Bun.sleep(Number(ms));
    publish("session_update", update("agent_message_chunk", `chunk ${i}/${n}\n`), promptId);
  }
  publish("turn_complete", { sessionId: SESSION, stopReason: "end_turn" }, promptId);
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/session" && request.method === "POST") return Response.json({ sessionId: SESSION });
    if (path === `/session/${SESSION}/prompt` && request.method === "POST") {
      const body = (await request.json()) as { prompt: { text: string }[] };
      const promptId = crypto.randomUUID();
      const answer = Response.json({ promptId, lastEventId: lastId, eventEpoch: "bare" }, { status: 202 });
      void stream(body.prompt[0]!.text, promptId);
      return answer;
    }
    if (path === `/session/${SESSION}/events`) {
      const sub: Subscriber = { queue: [], waiter: null };
      subscribers.add(sub);
      const body = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            controller.enqueue(encoder.encode("retry: 3000\n\n"));
          },
          async pull(controller) {
            while (sub.queue.length === 0) await new Promise<void>((resolve) => (sub.waiter = resolve));
            const frames = sub.queue.splice(0);
            controller.enqueue(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
          },
          cancel() {
            subscribers.delete(sub);
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    }
    if (path === "/daemon/status")
      return Response.json({ runtime: { channel: { childPids: [] }, transport: { restSseActive: subscribers.size }, memory: { heapUsedBytes: process.memoryUsage().heapUsed } } });
    return new Response("not found", { status: 404 });
  },
});
process.stdout.write(`bare fan-out listening on http://127.0.0.1:${server.port}\n`);
process.on("SIGTERM", () => {
  void server.stop(true);
  process.exit(0);
});
