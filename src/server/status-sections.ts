/**
 * The workspace sections `/daemon/status?detail=full` reads: each is queried on its own, all in
 * parallel, each bounded by SECTION_TIMEOUT_MS. A section that throws, times out or answers
 * something that is not an object is reported `unavailable` with why (the snapshot then carries a
 * `workspace_status_unavailable` issue); the others are unaffected. A section reads what its
 * status route answers (`workspace-snapshots.ts`), and like the route never starts an agent child.
 */
import { isObject } from "../workspace/agent-json.ts";
import type { SnapshotSource } from "./workspace-snapshots.ts";

/** One section: `read` answers its payload; `signal` is aborted when the section has timed out. */
export interface WorkspaceSection {
  readonly name: string;
  read(signal: AbortSignal): Promise<unknown>;
}

/**
 * How long one section may take. Above the tool probes' own bound (PROBE_TIMEOUT_MS, 2 s, which
 * the first preflight read may spend), so a slow probe shows as its own cell rather than the whole
 * section going unavailable; a section that never answers costs `full` this much at most.
 */
export const SECTION_TIMEOUT_MS = 2_500;

type SectionHealth = "ok" | "warning" | "error";
type Scalar = string | number | boolean;

export type SectionReport =
  | { readonly status: SectionHealth; readonly durationMs: number; readonly summary: Readonly<Record<string, Scalar>>; readonly data: Readonly<Record<string, unknown>> }
  | { readonly status: "unavailable"; readonly durationMs: number; readonly error: { readonly kind: "timeout" | "error"; readonly message: string } };

/** The members of a payload that hold status-bearing entries (cells, MCP servers, skills, …). */
const CONTAINERS = ["cells", "errors", "servers", "budgets", "skills", "tools", "providers", "hooks", "extensions"] as const;
/** Scalars of a payload the summary repeats. */
const SUMMARY_SCALARS = ["initialized", "acpChannelLive", "discoveryState", "budgetMode", "clientCount", "clientBudget"] as const;

/** Every `status` string in the payload and its containers, depth first. */
function statusesIn(data: unknown, into: string[] = []): string[] {
  if (!isObject(data)) return into;
  if (typeof data.status === "string") into.push(data.status);
  for (const key of CONTAINERS) {
    const value = data[key];
    if (Array.isArray(value)) for (const item of value) statusesIn(item, into);
  }
  return into;
}

function healthOf(data: Record<string, unknown>): SectionHealth {
  const statuses = statusesIn(data);
  if (statuses.includes("error")) return "error";
  return statuses.includes("warning") ? "warning" : "ok";
}

function summaryOf(data: Record<string, unknown>): Record<string, Scalar> {
  const summary: Record<string, Scalar> = {};
  for (const key of SUMMARY_SCALARS) {
    const value = data[key];
    if (typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) summary[key] = value;
  }
  for (const key of CONTAINERS) {
    const value = data[key];
    if (Array.isArray(value)) summary[`${key}Count`] = value.length;
  }
  return summary;
}

class SectionTimeout extends Error {}

async function collectSection(section: WorkspaceSection, timeoutMs: number): Promise<SectionReport> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new SectionTimeout(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const data = await Promise.race([Promise.resolve().then(() => section.read(abort.signal)), timedOut]);
    if (!isObject(data)) throw new Error("the section answered something that is not an object");
    return { status: healthOf(data), durationMs: durationMs(), summary: summaryOf(data), data };
  } catch (err) {
    return { status: "unavailable", durationMs: durationMs(), error: { kind: err instanceof SectionTimeout ? "timeout" : "error", message: err instanceof Error ? err.message : String(err) } };
  } finally {
    clearTimeout(timer);
  }
}

/** Reads every section in parallel; one report per section, by name. */
export async function collectSections(sections: readonly WorkspaceSection[], timeoutMs = SECTION_TIMEOUT_MS): Promise<Record<string, SectionReport>> {
  const reports = await Promise.all(sections.map((s) => collectSection(s, timeoutMs)));
  return Object.fromEntries(sections.map((s, i) => [s.name, reports[i]!]));
}

/**
 * What the agent may spend of a section's time: less than SECTION_TIMEOUT_MS, so its request is
 * over (and cancelled) by the time the section is judged.
 */
const AGENT_SHARE_MS = SECTION_TIMEOUT_MS - 500;

/** Error kinds of the cell a snapshot carries when the agent did not answer its part. */
const AGENT_FAILURES: ReadonlySet<unknown> = new Set(["init_timeout", "protocol_error"]);

/**
 * The workspace snapshots, as the sections `full` reads. A snapshot whose agent part timed out or
 * failed is the section timing out or failing: unavailable, with a `workspace_status_unavailable`
 * issue (an agent that merely cannot report a section, an `unknown` cell, is not a failure).
 */
export function snapshotSections(snapshots: readonly SnapshotSource[]): WorkspaceSection[] {
  return snapshots.map((s) => ({
    name: s.name,
    read: async () => {
      const snapshot = await s.read(AGENT_SHARE_MS);
      const errors = Array.isArray(snapshot.errors) ? (snapshot.errors as { errorKind?: unknown; error?: unknown }[]) : [];
      const failed = errors.find((cell) => AGENT_FAILURES.has(cell.errorKind));
      if (failed) {
        const message = `the agent did not report ${s.name}: ${typeof failed.error === "string" ? failed.error : failed.errorKind}`;
        throw failed.errorKind === "init_timeout" ? new SectionTimeout(message) : new Error(message);
      }
      return snapshot;
    },
  }));
}
