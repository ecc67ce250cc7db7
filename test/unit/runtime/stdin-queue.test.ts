import { expect, test } from "bun:test";
import { MAX_STDIN_QUEUE_BYTES, STDIN_STALL_MS, StdinStalledError, stdinQueue } from "../../../src/runtime/stdin-queue.ts";
import { WEDGE_SILENCE_MS } from "../../../src/runtime/wedge-watch.ts";
import { until } from "../../helpers/until.ts";

/**
 * A child's stdin as the queue sees it: `write` takes a slice, `flush` resolves when the child has
 * read it. `reading` decides how: at once, after `delayMs`, or never (until `release()`).
 */
function fakeSink(reading: { delayMs: number } | "held") {
  const taken: Uint8Array[] = [];
  const held: Array<() => void> = [];
  let takenBytes = 0;
  const sink = {
    write(slice: Uint8Array) {
      taken.push(slice.slice());
      return slice.byteLength;
    },
    flush(): Promise<number> {
      return new Promise((resolve) => {
        const done = () => {
          takenBytes += taken.at(-1)!.byteLength;
          resolve(0);
        };
        if (reading === "held") held.push(done);
        else setTimeout(done, reading.delayMs);
      });
    },
    end() {
      return 0;
    },
  };
  return {
    sink,
    taken,
    get takenBytes() {
      return takenBytes;
    },
    /** Lets the child read everything written so far, and from now on at once. */
    release() {
      reading = { delayMs: 0 };
      for (const done of held.splice(0)) done();
    },
  };
}

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

test("writes past the bound wait for the child to drain the queue, and none is refused", async () => {
  const child = fakeSink("held");
  const stalls: Error[] = [];
  const writer = stdinQueue(child.sink, (e) => stalls.push(e), { stallMs: 60_000 }).getWriter();
  const half = MAX_STDIN_QUEUE_BYTES / 2;
  await writer.write(bytes(half, 1));
  await writer.write(bytes(half, 2)); // exactly at the bound: accepted at once
  let thirdDone = false;
  const third = writer.write(bytes(half, 3)).then(() => (thirdDone = true));
  await Bun.sleep(20);
  expect(thirdDone).toBe(false);

  child.release();
  await third;
  await writer.write(bytes(1, 4));
  await until(() => child.takenBytes === 3 * half + 1, 5000, "every byte to reach the child");
  const all = Buffer.concat(child.taken);
  expect([all[0], all[half], all[2 * half], all[3 * half]]).toEqual([1, 2, 3, 4]);
  expect(stalls).toEqual([]);
});

test("a child that reads slowly but steadily is never judged wedged, however long the whole takes", async () => {
  const child = fakeSink({ delayMs: 25 });
  const stalls: Error[] = [];
  const writer = stdinQueue(child.sink, (e) => stalls.push(e), { stallMs: 1000 }).getWriter();
  const total = 4 * 1024 * 1024; // 64 slices, ~1.6 s in all
  await writer.write(bytes(total, 7));
  await until(() => child.takenBytes === total, 20_000, "the slow child to read everything");
  expect(stalls).toEqual([]);
});

test("a child that takes nothing while bytes wait is reported once, and every write after fails", async () => {
  const child = fakeSink("held");
  const stalls: Error[] = [];
  const writer = stdinQueue(child.sink, (e) => stalls.push(e), { stallMs: 200 }).getWriter();
  const waiting = writer.write(bytes(MAX_STDIN_QUEUE_BYTES + 1, 1));
  expect(await waiting.catch((e: unknown) => e)).toBeInstanceOf(StdinStalledError);
  expect(stalls).toHaveLength(1);
  expect(stalls[0]!.message).toBe(`the agent stopped reading its input (${MAX_STDIN_QUEUE_BYTES + 1} bytes waiting, none taken and no answer from it for 200 ms)`);
  expect(await writer.write(bytes(1, 2)).catch((e: unknown) => e)).toBeInstanceOf(StdinStalledError);
  expect(stalls).toHaveLength(1);
});

test("a child that takes nothing but still speaks is not judged wedged; once it has been silent for the window too, it is", async () => {
  const child = fakeSink("held");
  const stalls: Error[] = [];
  let heardAt = performance.now();
  const writer = stdinQueue(child.sink, (e) => stalls.push(e), { stallMs: 300, lastHeard: () => heardAt }).getWriter();
  const waiting = writer.write(bytes(MAX_STDIN_QUEUE_BYTES + 1, 1)).catch((e: unknown) => e);
  // It writes (a turn's updates) every 100 ms for a second, reading nothing all along.
  const started = performance.now();
  while (performance.now() - started < 1000) {
    await Bun.sleep(100);
    heardAt = performance.now();
  }
  expect(stalls).toEqual([]);
  // Then it falls silent as well.
  expect(await waiting).toBeInstanceOf(StdinStalledError);
  expect(performance.now() - heardAt).toBeGreaterThanOrEqual(300);
  expect(stalls).toHaveLength(1);
});

test("a child busy for a while (nothing read, nothing written) is given the wedge rule's window before it is judged", () => {
  expect(STDIN_STALL_MS).toBe(WEDGE_SILENCE_MS);
});
