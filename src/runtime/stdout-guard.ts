/**
 * Watches a child's stdout on its way to the NDJSON reader without reframing it: bytes pass
 * through unchanged, but a child that writes more than MAX_NON_JSON_LINES lines that cannot be
 * JSON-RPC (not starting with `{`) is cut off, which closes the channel. The SDK already drops a
 * single line over its message cap; this bounds the other way a child can keep us busy.
 */
export const MAX_NON_JSON_LINES = 200;

const NL = 0x0a;
const BRACE = 0x7b;
const isBlank = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d;

export function guardStdout(input: ReadableStream<Uint8Array>, onReject: (why: string) => void): ReadableStream<Uint8Array> {
  let atLineStart = true;
  let junkLines = 0;
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let i = 0;
        while (i < chunk.length) {
          if (atLineStart) {
            while (i < chunk.length && isBlank(chunk[i]!)) i++;
            if (i === chunk.length) break;
            if (chunk[i] !== BRACE && chunk[i] !== NL && ++junkLines > MAX_NON_JSON_LINES) {
              onReject(`more than ${MAX_NON_JSON_LINES} non-JSON lines`);
              controller.error(new Error("agent wrote too much non-JSON output"));
              return;
            }
            atLineStart = false;
          }
          const nl = chunk.indexOf(NL, i);
          if (nl === -1) break;
          atLineStart = true;
          i = nl + 1;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * True for a JSON-RPC message: a request or notification (`method`), or a response (`id` with
 * `result` or `error`). Other JSON records from a child are dropped unanswered and counted against
 * MAX_NON_JSON_LINES like non-JSON lines: the SDK would answer each with an error that echoes the
 * record back, an unbounded write queue towards a child that may not be reading.
 */
export function isRpcMessage(message: unknown): boolean {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  return typeof m.method === "string" || ("id" in m && ("result" in m || "error" in m));
}
