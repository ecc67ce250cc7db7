/**
 * The sessions' door to the checkpoints: nothing loads before a turn, and a turn that starts while
 * its session is being rewound waits for the rewind.
 */
import { expect, test } from "bun:test";
import { Logger } from "../../../src/logging/logger.ts";
import { CheckpointSeam } from "../../../src/sessions/checkpoint-seam.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

const quiet = new Logger("error", "text", { write: () => {} });
const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

test("status is zeros before the first turn; a turn starting during a rewind waits for it", async () => {
  await using data = tempDir("p-seam-data-");
  await using ws = tempDir("p-seam-ws-");
  // No PATH: no git, so a turn's start does no I/O but the record.
  const seam = new CheckpointSeam({ dataDir: data.path, maxBytes: 4096, baseEnv: {} }, quiet);
  expect(seam.status()).toEqual({ bytes: 0, count: 0, evictions: 0, maxBytes: 4096, turns: 0 });
  await seam.load();
  const session = seam.forSession("s1", ws.path);
  const gate = Promise.withResolvers<void>();
  const rewinding = seam.holding("s1", () => gate.promise);
  const started = session.turnStarted("p1");
  await ticks(20);
  expect(seam.isRunning("s1")).toBe(false);
  gate.resolve();
  await rewinding;
  await started;
  expect(seam.isRunning("s1")).toBe(true);
  expect(seam.status().turns).toBe(1);
});
