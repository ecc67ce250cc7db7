/**
 * Extension operations (install, enable, disable, uninstall), in the reference's shape:
 * `{v: 1, operationId, operation, status, createdAt, updatedAt, name?, source?, result?, error?}`,
 * status `queued` → `running` → `succeeded` | `failed`. They run one at a time, in order (two
 * installs of the same extension cannot interleave their renames). The last MAX_KEPT finished ones
 * are kept to be asked about; `active()` lists those not finished. MAX_QUEUED waiting is the most:
 * past it a new one is refused (429).
 */
import { DaemonError } from "../errors/daemon-error.ts";

export const MAX_KEPT = 100;
export const MAX_QUEUED = 16;
const MAX_ERROR_CHARS = 500;

export type OperationKind = "install" | "enable" | "disable" | "uninstall";
export type OperationStatus = "queued" | "running" | "succeeded" | "failed";

export interface ExtensionOperation {
  v: 1;
  operationId: string;
  operation: OperationKind;
  status: OperationStatus;
  createdAt: number;
  updatedAt: number;
  name?: string;
  source?: string;
  result?: Record<string, unknown>;
  error?: string;
  code?: string;
}

export class ExtensionOperations {
  private readonly ops = new Map<string, ExtensionOperation>();
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  /** Queues `run`; answers the operation at once (the caller answers 202 with its id). */
  start(kind: OperationKind, about: { name?: string; source?: string }, run: () => Promise<Record<string, unknown>>): ExtensionOperation {
    if (this.waiting >= MAX_QUEUED) throw new DaemonError(429, "extension_operations_busy", `${MAX_QUEUED} extension operations are already waiting`, {}, 1);
    const now = Date.now();
    const op: ExtensionOperation = { v: 1, operationId: crypto.randomUUID(), operation: kind, status: "queued", createdAt: now, updatedAt: now, ...about };
    this.ops.set(op.operationId, op);
    this.prune();
    this.waiting++;
    this.tail = this.tail.then(async () => {
      this.waiting--;
      Object.assign(op, { status: "running", updatedAt: Date.now() });
      try {
        const result = await run();
        Object.assign(op, { status: "succeeded", result, updatedAt: Date.now() });
      } catch (err) {
        const code = err instanceof DaemonError && err.code ? err.code : undefined;
        Object.assign(op, { status: "failed", error: String((err as Error).message ?? err).slice(0, MAX_ERROR_CHARS), ...(code ? { code } : {}), updatedAt: Date.now() });
      }
    });
    return { ...op };
  }

  get(operationId: string): ExtensionOperation | undefined {
    const op = this.ops.get(operationId);
    return op ? { ...op } : undefined;
  }

  active(): ExtensionOperation[] {
    return [...this.ops.values()].filter((o) => o.status === "queued" || o.status === "running").map((o) => ({ ...o }));
  }

  private prune(): void {
    const finished = [...this.ops.values()].filter((o) => o.status === "succeeded" || o.status === "failed");
    for (const op of finished.slice(0, Math.max(0, finished.length - MAX_KEPT))) this.ops.delete(op.operationId);
  }
}
