/**
 * Writes to stdout (fd 1) directly, not through Node's `process.stdout` stream, whose set-up costs
 * ~12 ms of CPU at start in the compiled binary (a compiled script printing its version: ~17 ms of
 * user time with `process.stdout.write`, ~5 ms with this). For the few lines svc prints on start:
 * the version, the usage, the listening or ready line. Synchronous, so the text is out on return.
 */
import { writeSync } from "node:fs";

export function printOut(text: string): void {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) done += writeSync(1, bytes, done);
}
