/**
 * The workspace status snapshots (spec "MCP snapshot", "Skills", "Providers", "Environment",
 * "Preflight", "Workspace tools", and the hooks) of one served workspace. `workspaceSnapshots(deps, scope)` lists
 * them by name; the app builds them once per workspace, so `/workspace/*` and the full daemon status
 * read the very same snapshots of the primary (and share one tool prober), and
 * `/workspaces/:workspace/*` those of the workspace named, from its own runtime and trust.
 *
 * Where the answer comes from:
 * - `env` and the daemon's preflight cells: daemon process state, always.
 * - the rest, while an agent child is live: the agent, through its profile
 *   (`<prefix>/status/workspace/<section>` with `{cwd}`), sanitized in `status-redact.ts`. A
 *   generic agent (or an extension agent without that method) cannot report them: the snapshot is
 *   empty with an `unknown` cell in `errors`, except providers, which the models a live session
 *   reported give. An agent that fails or does not answer within the budget leaves an `errors` cell
 *   (`init_timeout` / `protocol_error`), and so does an answer the sanitizer refuses (beyond the
 *   answer bounds of `agent-json.ts`); a status read never throws, hangs or starts a child.
 * - single flight: at most one agent request per section is in flight. A read that finds one
 *   (concurrent `/workspace/<section>` reads, full daemon statuses) shares its answer, waiting no
 *   longer than its own budget, so N concurrent readers cost the agent one request, not N.
 * - while no child is live: `initialized: false` and an empty snapshot.
 */
import type { Config } from "../config/config.ts";
import { DaemonError } from "../errors/daemon-error.ts";
import { redactSecrets } from "../logging/redact.ts";
import { STATUS_TIMEOUT_MS, type WorkspaceSection as AgentSection } from "../runtime/agent-profile.ts";
import { cliEntryStatus } from "../runtime/cli-entry.ts";
import { stderrSecrets } from "../runtime/stderr-secrets.ts";
import { ToolProber } from "../runtime/tool-probe.ts";
import type { SessionManager } from "../sessions/session-manager.ts";
import { isObject } from "../workspace/agent-json.ts";
import { envCells } from "../workspace/env-cells.ts";
import { preflightCells } from "../workspace/preflight-cells.ts";
import type { StatusCell } from "../workspace/status-cell.ts";
import type { WorkspaceScope } from "../workspace-registry/workspace-scope.ts";
import { HOOK_EVENT_INFO } from "../config/hooks-config.ts";
import { redactHooks, redactMcp, redactPreflight, redactProviders, redactSkills, redactTools } from "../workspace/status-redact.ts";
import { trustFinding, trustReport } from "./trust-report.ts";

export type SectionName = "env" | "preflight" | "mcp" | "skills" | "providers" | "tools" | "hooks";

export type Snapshot = Record<string, unknown> & { readonly v: 1; readonly workspaceCwd: string; readonly initialized: boolean };

export interface SnapshotSource {
  readonly name: SectionName;
  /** The snapshot; the agent gets at most `timeoutMs` (and never more than STATUS_TIMEOUT_MS). Never rejects. */
  read(timeoutMs?: number): Promise<Snapshot>;
}

export interface SnapshotDeps {
  readonly config: Config;
  readonly sessions: SessionManager;
}

/** What the live agent said about one section: its answer already sanitized into the section's members. */
type AgentAnswer =
  | { readonly kind: "idle" }
  | { readonly kind: "unsupported" }
  | { readonly kind: "answer"; readonly initialized: boolean; readonly members: Record<string, unknown> }
  | { readonly kind: "failed"; readonly cell: StatusCell };

/** The sanitizer of a section's answer (throws on an answer it refuses). */
type Project = (answer: unknown) => Record<string, unknown>;

const unknownCell = (kind: string): StatusCell => ({ kind, status: "unknown", hint: "the agent does not report this" });

/** A live agent may say its part is not ready yet (qwen: skills before its skill manager loaded). */
const agentInitialized = (answer: unknown) => !(isObject(answer) && answer.initialized === false);

/**
 * The MCP members while no agent runs: discovery has not started, no client is connected, and no
 * budget applies (the reference's clients expect every member of the envelope).
 */
const IDLE_MCP = () => ({ discoveryState: "not_started", clientCount: 0, budgetMode: "off", budgets: [] });

export function workspaceSnapshots(deps: SnapshotDeps, scope: WorkspaceScope): SnapshotSource[] {
  const { config } = deps;
  const { path: workspace, runtime: child } = scope;
  const secrets = stderrSecrets(config.agent, config.token);
  const prober = new ToolProber(config.agent.baseEnv.PATH, workspace);
  const runtime = { name: "bun", version: Bun.version, platform: process.platform, arch: process.arch };

  const envelope = (initialized: boolean): Snapshot => ({ v: 1, workspaceCwd: workspace, initialized });

  /** Why the agent could not give `section`: a timeout, or anything else it did wrong. */
  function failure(section: string, err: unknown, timedOut = err instanceof DaemonError && err.fields.errorKind === "init_timeout"): StatusCell {
    const message = err instanceof Error ? err.message : String(err);
    return {
      kind: section,
      status: "error",
      errorKind: timedOut ? "init_timeout" : "protocol_error",
      error: redactSecrets(message, secrets),
      hint: timedOut ? "the agent did not answer in time; retry, or read the daemon log" : "the agent could not report this; read the daemon log",
    };
  }

  /** The one agent request in flight per section (single flight, see above). */
  const inFlight = new Map<AgentSection, Promise<AgentAnswer>>();

  function ask(section: AgentSection, timeoutMs: number, project: Project): Promise<AgentAnswer> {
    const live = child.current();
    if (!live || !child.channelLive) return Promise.resolve({ kind: "idle" });
    const shared = inFlight.get(section);
    if (shared) return withinBudget(shared, section, timeoutMs);
    const flight = askAgent(live, section, timeoutMs, project).finally(() => {
      if (inFlight.get(section) === flight) inFlight.delete(section);
    });
    inFlight.set(section, flight);
    return flight;
  }

  /** The shared request's answer, or an `init_timeout` cell once this reader's own budget is spent. */
  async function withinBudget(shared: Promise<AgentAnswer>, section: AgentSection, timeoutMs: number): Promise<AgentAnswer> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const budgetMs = Math.min(timeoutMs, STATUS_TIMEOUT_MS);
    const spent = new Promise<AgentAnswer>((resolve) => {
      timer = setTimeout(() => resolve({ kind: "failed", cell: failure(section, new Error(`the agent did not answer ${section} status within ${budgetMs} ms`), true) }), budgetMs);
    });
    try {
      return await Promise.race([shared, spent]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Asks the agent and sanitizes its answer; whatever goes wrong (sanitizing included) becomes a failure cell. */
  async function askAgent(live: NonNullable<ReturnType<typeof child.current>>, section: AgentSection, timeoutMs: number, project: Project): Promise<AgentAnswer> {
    try {
      const answer = await live.profile.workspaceStatus(live.channel, section, workspace, Math.min(timeoutMs, STATUS_TIMEOUT_MS));
      if (answer === null) return { kind: "unsupported" };
      if (!isObject(answer)) return { kind: "failed", cell: failure(section, new Error(`the agent answered ${section} status with something that is not an object`)) };
      return { kind: "answer", initialized: agentInitialized(answer), members: project(answer) };
    } catch (err) {
      return { kind: "failed", cell: failure(section, err) };
    }
  }

  /**
   * A section the agent alone can fill: `empty` while idle or unanswered (with `idle` on top while
   * no agent runs), `fill` from its answer.
   */
  const fromAgent =
    (section: "mcp" | "skills" | "tools" | "hooks", empty: () => Record<string, unknown>, fill: Project, idle: () => Record<string, unknown> = () => ({})) =>
    async (timeoutMs = STATUS_TIMEOUT_MS): Promise<Snapshot> => {
      const reply = await ask(section, timeoutMs, fill);
      switch (reply.kind) {
        case "idle":
          return { ...envelope(false), ...empty(), ...idle() };
        case "unsupported":
          return { ...envelope(true), ...empty(), errors: [unknownCell(section)] };
        case "failed":
          return { ...envelope(true), ...empty(), errors: [reply.cell] };
        case "answer":
          return { ...envelope(reply.initialized), ...empty(), ...reply.members };
      }
    };

  /** Providers from the models a live session of the workspace reported (standard ACP). */
  function providersFromSessions(): Record<string, unknown> | null {
    for (const session of deps.sessions.all()) {
      if (session.runtime !== child) continue;
      const models = session.state.models as { currentModelId?: unknown; availableModels?: unknown } | undefined;
      if (!isObject(models) || !Array.isArray(models.availableModels)) continue;
      const currentModelId = typeof models.currentModelId === "string" ? models.currentModelId : null;
      const list = models.availableModels.filter(isObject).filter((m) => typeof m.modelId === "string");
      const authType = "unknown";
      return redactProviders(
        {
          ...(currentModelId ? { current: { authType, modelId: currentModelId } } : {}),
          providers: [
            {
              kind: "model_provider",
              status: "ok",
              authType,
              current: currentModelId !== null,
              models: list.map((m) => ({ modelId: m.modelId, baseModelId: m.modelId, name: m.name, description: m.description, isCurrent: m.modelId === currentModelId, isRuntime: false })),
            },
          ],
        },
        secrets,
      );
    }
    return null;
  }

  async function providers(timeoutMs = STATUS_TIMEOUT_MS): Promise<Snapshot> {
    const reply = await ask("providers", timeoutMs, (a) => redactProviders(a, secrets));
    if (reply.kind === "idle") return { ...envelope(false), providers: [] };
    if (reply.kind === "answer") return { ...envelope(reply.initialized), ...reply.members };
    let known: Record<string, unknown> | null;
    try {
      known = providersFromSessions();
    } catch (err) {
      // The models came from the agent too: ones beyond the answer bounds are refused alike.
      return { ...envelope(true), providers: [], errors: [reply.kind === "failed" ? reply.cell : failure("providers", err)] };
    }
    const errors = reply.kind === "failed" ? [reply.cell] : known === null ? [unknownCell("providers")] : [];
    return { ...envelope(true), providers: [], ...known, ...(errors.length > 0 ? { errors } : {}) };
  }

  async function preflight(timeoutMs = STATUS_TIMEOUT_MS): Promise<Snapshot> {
    const reply = await ask("preflight", timeoutMs, (a) => redactPreflight(a, secrets));
    const report = trustReport(config, scope.trust, workspace);
    const agent = reply.kind === "answer" ? (reply.members as ReturnType<typeof redactPreflight>) : null;
    const errors = [...(reply.kind === "failed" ? [reply.cell] : []), ...(agent?.errors ?? [])];
    return {
      ...envelope(reply.kind !== "idle"),
      acpChannelLive: reply.kind !== "idle",
      cells: preflightCells({
        runtimeVersion: Bun.version,
        entry: cliEntryStatus(config.agent),
        startFailure: child.lastStartFailure,
        workspace,
        trust: trustFinding(report),
        tools: await prober.probe(),
        // An agent that could not be reached leaves its cells `not_started`.
        channelLive: reply.kind === "answer" || reply.kind === "unsupported",
        ...(agent ? { agentCells: agent.cells } : {}),
      }),
      ...(errors.length > 0 ? { errors } : {}),
    };
  }

  return [
    { name: "env", read: async () => ({ ...envelope(child.channelLive), acpChannelLive: child.channelLive, cells: envCells(config.agent.baseEnv, runtime) }) },
    { name: "preflight", read: preflight },
    { name: "mcp", read: fromAgent("mcp", () => ({ servers: [] }), (a) => redactMcp(a, secrets), IDLE_MCP) },
    { name: "skills", read: fromAgent("skills", () => ({ skills: [] }), (a) => redactSkills(a, secrets)) },
    // While no agent runs, the events are the built-in agent's (the daemon's default child).
    { name: "hooks", read: fromAgent("hooks", () => ({ disabled: false, hooks: [], events: {} }), (a) => redactHooks(a, secrets), () => ({ events: HOOK_EVENT_INFO })) },
    { name: "providers", read: providers },
    {
      name: "tools",
      read: async (timeoutMs) => {
        const snapshot = await fromAgent("tools", () => ({ acpChannelLive: child.channelLive, tools: [] }), (a) => redactTools(a, secrets))(timeoutMs);
        if (snapshot.initialized) return snapshot;
        return { ...snapshot, errors: [{ kind: "tools", status: "not_started", hint: "tools are reported once an agent session is started" }] };
      },
    },
  ];
}
