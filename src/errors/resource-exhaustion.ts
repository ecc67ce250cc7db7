/**
 * System error codes that mean the machine or the process is out of a resource (descriptors, process
 * slots, memory) for now, e.g. spawning an agent under a full descriptor table: the request was fine
 * and may succeed later (the server answers 503 `resource_exhausted` with Retry-After, not a 500).
 */
const RESOURCE_EXHAUSTED = new Set(["EMFILE", "ENFILE", "EAGAIN", "ENOMEM"]);
/** How many `cause` links are followed looking for a system error code. */
const MAX_CAUSE_DEPTH = 4;

/** The resource-exhaustion code of `err` or of an error it wraps, or null. */
export function exhaustedResource(err: unknown): string | null {
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && typeof err === "object" && err !== null; depth++) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && RESOURCE_EXHAUSTED.has(code)) return code;
    err = (err as { cause?: unknown }).cause;
  }
  return null;
}
