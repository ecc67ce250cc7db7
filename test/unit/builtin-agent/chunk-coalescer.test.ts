/** The chunk coalescer gathers deltas by bytes and time, keeps message and thought text in order, and sends everything on flush. */
import { describe, expect, test } from "bun:test";
import { ChunkCoalescer, COALESCE_BYTES, COALESCE_INTERVAL_MS, type ChunkKind } from "../../../src/builtin-agent/chunk-coalescer.ts";
import { MESSAGE_CHUNK_BYTES } from "../../../src/builtin-agent/acp-bounds.ts";
import { until } from "../../helpers/until.ts";

type Sent = Array<[ChunkKind, string]>;
const recorder = () => {
  const sent: Sent = [];
  return { sent, coalescer: new ChunkCoalescer(async (kind, text) => void sent.push([kind, text])) };
};

describe("chunk coalescer", () => {
  test("deltas close in time become one chunk, sent after the interval without a flush", async () => {
    const { sent, coalescer } = recorder();
    for (const c of "hello") await coalescer.add("agent_message_chunk", c);
    expect(sent).toEqual([]);
    await until(() => sent.length > 0, 5 * COALESCE_INTERVAL_MS + 1000, "the interval's chunk");
    expect(sent).toEqual([["agent_message_chunk", "hello"]]);
  });

  test("a kind change sends what came before it first: message and thought text keep their order", async () => {
    const { sent, coalescer } = recorder();
    await coalescer.add("agent_message_chunk", "a");
    await coalescer.add("agent_message_chunk", "b");
    await coalescer.add("agent_thought_chunk", "t");
    await coalescer.add("agent_message_chunk", "c");
    await coalescer.flush();
    expect(sent).toEqual([
      ["agent_message_chunk", "ab"],
      ["agent_thought_chunk", "t"],
      ["agent_message_chunk", "c"],
    ]);
  });

  test("COALESCE_BYTES buffered are sent at once, and the delta that reached them waits until they are out", async () => {
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    const sent: Sent = [];
    const coalescer = new ChunkCoalescer(async (kind, text) => {
      await gate;
      sent.push([kind, text]);
    });
    await coalescer.add("agent_message_chunk", "x".repeat(COALESCE_BYTES - 4));
    let done = false;
    const last = coalescer.add("agent_message_chunk", "€€").then(() => (done = true));
    await Bun.sleep(2 * COALESCE_INTERVAL_MS);
    expect(done).toBe(false);
    open();
    await last;
    expect(sent.map(([, text]) => Buffer.byteLength(text))).toEqual([COALESCE_BYTES - 1, 3]);
  });

  test("flush sends what is buffered and waits for it; a long chunk goes out as notifications of at most MESSAGE_CHUNK_BYTES", async () => {
    const { sent, coalescer } = recorder();
    await coalescer.add("agent_thought_chunk", "y".repeat(COALESCE_BYTES - 10));
    await coalescer.add("agent_message_chunk", "z".repeat(3 * MESSAGE_CHUNK_BYTES));
    expect(sent.map(([kind, text]) => [kind, text.length])).toEqual([
      ["agent_thought_chunk", COALESCE_BYTES - 10],
      ["agent_message_chunk", MESSAGE_CHUNK_BYTES],
      ["agent_message_chunk", MESSAGE_CHUNK_BYTES],
      ["agent_message_chunk", MESSAGE_CHUNK_BYTES],
    ]);
    await coalescer.add("agent_message_chunk", "end");
    await coalescer.flush();
    expect(sent.at(-1)).toEqual(["agent_message_chunk", "end"]);
  });

  test("a failed send is reported by the next flush, never as an unhandled rejection", async () => {
    const coalescer = new ChunkCoalescer(async () => {
      throw new Error("connection closed");
    });
    await coalescer.add("agent_message_chunk", "lost");
    await Bun.sleep(3 * COALESCE_INTERVAL_MS);
    expect(coalescer.flush()).rejects.toThrow("connection closed");
  });
});
