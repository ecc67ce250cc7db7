/**
 * Process-level fault handlers for `svc serve`: an uncaught exception or an unhandled rejection is
 * logged and the daemon keeps running. Such a fault comes from one request, one session or one
 * child; ending the process for it would end every other session too. The log line carries the
 * error's name and message (cut at MAX_FAULT_CHARS, any secret replaced) and, at debug level, its
 * stack; never the error object's other fields, which may hold request data.
 */
import type { Logger } from "./logger.ts";
import { redactSecrets } from "./redact.ts";

/** Longest message or stack logged for one fault. */
export const MAX_FAULT_CHARS = 2000;

/** The events this listens to, as `process` emits them. */
export interface FaultSource {
  on(event: "uncaughtException", listener: (error: unknown) => void): unknown;
  on(event: "unhandledRejection", listener: (reason: unknown) => void): unknown;
}

/** `Name: message` and the stack of a thrown value, with every secret replaced and cut to size. */
export function describeFault(error: unknown, secrets: readonly string[]): { error: string; stack: string | undefined } {
  const redact = (raw: string) => {
    const text = redactSecrets(raw, secrets);
    return text.length > MAX_FAULT_CHARS ? `${text.slice(0, MAX_FAULT_CHARS)}…` : text;
  };
  if (error instanceof Error) return { error: redact(`${error.name}: ${error.message}`), stack: error.stack === undefined ? undefined : redact(error.stack) };
  let text: string;
  try {
    text = typeof error === "string" ? error : `non-error value: ${String(error)}`;
  } catch {
    text = "non-error value";
  }
  return { error: redact(text), stack: undefined };
}

export function installFaultHandlers(source: FaultSource, logger: Logger, secrets: readonly string[]): void {
  const report = (kind: string) => (error: unknown) => {
    try {
      const fault = describeFault(error, secrets);
      logger.error(kind, { error: fault.error });
      if (fault.stack !== undefined) logger.debug("stack", { stack: fault.stack });
    } catch {
      // reporting must not raise a second fault
    }
  };
  source.on("uncaughtException", report("uncaught exception; the daemon keeps running"));
  source.on("unhandledRejection", report("unhandled rejection; the daemon keeps running"));
}
