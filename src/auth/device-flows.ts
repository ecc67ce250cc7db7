/**
 * The device-flow sign-ins under way (RFC 8628, `oauth-device.ts`), one per provider at a time: a
 * second start for a provider whose flow is pending attaches to it (`attached: true`) instead of
 * asking the authorization server again. Each flow polls the token endpoint every `interval`
 * seconds (`slow_down` adds SLOW_DOWN_STEP_S, up to MAX_INTERVAL_S) until it is authorized, denied
 * (`access_denied`), expired (`expires_in` passed or `expired_token`), cancelled (DELETE), failed
 * (an answer that is none of these, MAX_UNREACHABLE_POLLS polls in a row without a usable answer,
 * or MAX_POLLS polls), and stores the tokens it gets as a provider (`credentials-store.ts`). A poll
 * without a usable answer (no connection, a timeout, HTTP 5xx or 429) is retried with the wait
 * doubled each time (RFC 8628 §3.5's backoff), up to MAX_INTERVAL_S.
 *
 * Bounds: at most MAX_ACTIVE_FLOWS pending at once (one more is refused with 409
 * `too_many_active_flows`); a finished flow stays readable for FINISHED_KEEP_MS, and at most
 * MAX_KEPT_FLOWS are kept (the oldest finished ones go first). The user code and verification
 * address are only in the answers to the flow's initiator (same `X-Svc-Client-Id`, or both
 * anonymous), never in a log line or `/daemon/status`.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import type { Logger } from "../logging/logger.ts";
import type { CredentialsStore } from "./credentials-store.ts";
import type { DeviceFlowProvider } from "./device-providers.ts";
import { MAX_INTERVAL_S, pollToken, requestDeviceCode, SLOW_DOWN_STEP_S, type DeviceAuthorization } from "./oauth-device.ts";

export const MAX_ACTIVE_FLOWS = 4;
/** Most polls of one flow: past it the flow fails (`poll_limit`). */
export const MAX_POLLS = 720;
/** Polls in a row without a usable answer before the flow fails (`upstream_error`). */
export const MAX_UNREACHABLE_POLLS = 6;
export const FINISHED_KEEP_MS = 5 * 60_000;
export const MAX_KEPT_FLOWS = 32;

export type FlowStatus = "pending" | "authorized" | "denied" | "expired" | "cancelled" | "error";

export interface FlowView {
  readonly deviceFlowId: string;
  readonly providerId: string;
  readonly status: FlowStatus;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly intervalMs: number;
  readonly polls: number;
  readonly lastPolledAt?: number;
  readonly errorKind?: "access_denied" | "expired_token" | "upstream_error" | "poll_limit" | "persist_failed";
  readonly hint?: string;
  /** Only for the flow's initiator. */
  readonly userCode?: string;
  readonly verificationUri?: string;
  readonly verificationUriComplete?: string;
}

interface Flow {
  readonly id: string;
  readonly provider: DeviceFlowProvider;
  readonly auth: DeviceAuthorization;
  readonly initiator: string | undefined;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly abort: AbortController;
  intervalMs: number;
  polls: number;
  /** Polls in a row that got no usable answer. */
  unreachable: number;
  lastPolledAt?: number;
  status: FlowStatus;
  finishedAt?: number;
  errorKind?: FlowView["errorKind"];
  hint?: string;
  timer?: Timer;
}

export interface DeviceFlowDeps {
  readonly providers: () => readonly DeviceFlowProvider[];
  readonly store: CredentialsStore;
  readonly logger: Logger;
}

export class DeviceFlows {
  private readonly flows = new Map<string, Flow>();
  /**
   * Starts waiting for their device code, by provider: they hold their provider's one flow and a
   * slot of MAX_ACTIVE_FLOWS from the moment they begin, so concurrent starts attach or are refused.
   */
  private readonly starting = new Map<string, Promise<Flow>>();

  constructor(private readonly deps: DeviceFlowDeps) {}

  /** Starts a flow for `providerId`, or attaches to its pending one. */
  async start(providerId: string, initiator: string | undefined): Promise<{ view: FlowView; attached: boolean }> {
    const provider = this.deps.providers().find((p) => p.id === providerId);
    if (!provider) throw new DaemonError(400, "unsupported_provider", `Unsupported device-flow provider: ${providerId}`, { supportedProviders: this.deps.providers().map((p) => p.id) });
    this.sweep();
    const pending = [...this.flows.values()].filter((f) => f.status === "pending");
    const existing = pending.find((f) => f.provider.id === providerId);
    if (existing) return { view: this.view(existing, initiator), attached: true };
    const underway = this.starting.get(providerId);
    if (underway) return { view: this.view(await underway, initiator), attached: true };
    if (pending.length + this.starting.size >= MAX_ACTIVE_FLOWS) throw new DaemonError(409, "too_many_active_flows", `At most ${MAX_ACTIVE_FLOWS} device flows may be pending at once`, { limit: MAX_ACTIVE_FLOWS });
    const begun = this.begin(provider, initiator).finally(() => this.starting.delete(providerId));
    this.starting.set(providerId, begun);
    return { view: this.view(await begun, initiator), attached: false };
  }

  /** Asks the authorization server for a device code and records the pending flow. */
  private async begin(provider: DeviceFlowProvider, initiator: string | undefined): Promise<Flow> {
    const abort = new AbortController();
    let auth: DeviceAuthorization;
    try {
      auth = await requestDeviceCode(provider, abort.signal);
    } catch (err) {
      throw new DaemonError(502, "upstream_error", `The authorization server did not start the sign-in: ${(err as Error).message}`);
    }
    const now = Date.now();
    const flow: Flow = { id: crypto.randomUUID(), provider, auth, initiator, createdAt: now, expiresAt: now + auth.expiresInS * 1000, abort, intervalMs: auth.intervalS * 1000, polls: 0, unreachable: 0, status: "pending" };
    this.flows.set(flow.id, flow);
    this.schedule(flow);
    this.deps.logger.info("device flow started", { deviceFlowId: flow.id, providerId: provider.id });
    return flow;
  }

  get(id: string, caller: string | undefined): FlowView {
    this.sweep();
    return this.view(this.find(id), caller);
  }

  /** Cancels a pending flow (a finished one stays as it ended). */
  cancel(id: string): void {
    const flow = this.find(id);
    if (flow.status === "pending") this.finish(flow, "cancelled");
  }

  /** The pending flows, without their codes. */
  pending(): { deviceFlowId: string; providerId: string; expiresAt: number }[] {
    return [...this.flows.values()].filter((f) => f.status === "pending").map((f) => ({ deviceFlowId: f.id, providerId: f.provider.id, expiresAt: f.expiresAt }));
  }

  /** Ends every pending flow (the daemon stops). */
  close(): void {
    for (const flow of this.flows.values()) if (flow.status === "pending") this.finish(flow, "cancelled");
  }

  private find(id: string): Flow {
    const flow = this.flows.get(id);
    if (!flow) throw new DaemonError(404, "device_flow_not_found", "No such device flow");
    return flow;
  }

  private view(f: Flow, caller: string | undefined): FlowView {
    const mine = f.initiator === caller;
    return {
      deviceFlowId: f.id,
      providerId: f.provider.id,
      status: f.status,
      createdAt: f.createdAt,
      expiresAt: f.expiresAt,
      intervalMs: f.intervalMs,
      polls: f.polls,
      ...(f.lastPolledAt === undefined ? {} : { lastPolledAt: f.lastPolledAt }),
      ...(f.errorKind === undefined ? {} : { errorKind: f.errorKind }),
      ...(f.hint === undefined ? {} : { hint: f.hint }),
      ...(mine && f.status === "pending"
        ? { userCode: f.auth.userCode, verificationUri: f.auth.verificationUri, ...(f.auth.verificationUriComplete ? { verificationUriComplete: f.auth.verificationUriComplete } : {}) }
        : {}),
    };
  }

  private schedule(flow: Flow): void {
    const backoff = Math.min(MAX_INTERVAL_S * 1000, flow.intervalMs * 2 ** flow.unreachable);
    const wait = Math.max(0, Math.min(Math.max(flow.intervalMs, backoff), flow.expiresAt - Date.now()));
    flow.timer = setTimeout(() => void this.poll(flow), wait);
    flow.timer.unref?.();
  }

  private async poll(flow: Flow): Promise<void> {
    if (flow.status !== "pending") return;
    if (Date.now() >= flow.expiresAt) return this.finish(flow, "expired", "expired_token", "The user did not approve the sign-in in time");
    if (flow.polls >= MAX_POLLS) return this.finish(flow, "error", "poll_limit", `No answer after ${MAX_POLLS} polls`);
    flow.polls++;
    flow.lastPolledAt = Date.now();
    let result: Awaited<ReturnType<typeof pollToken>>;
    try {
      result = await pollToken(flow.provider, flow.auth, flow.abort.signal);
    } catch {
      return; // cancelled while polling
    }
    if (flow.status !== "pending") return;
    flow.unreachable = result.kind === "unreachable" ? flow.unreachable + 1 : 0;
    switch (result.kind) {
      case "unreachable":
        if (flow.unreachable >= MAX_UNREACHABLE_POLLS) return this.finish(flow, "error", "upstream_error", `${result.message} (${flow.unreachable} polls in a row)`);
        return this.schedule(flow);
      case "pending":
        return this.schedule(flow);
      case "slow_down":
        flow.intervalMs = Math.min(MAX_INTERVAL_S * 1000, flow.intervalMs + SLOW_DOWN_STEP_S * 1000);
        return this.schedule(flow);
      case "denied":
        return this.finish(flow, "denied", "access_denied", "The user declined the sign-in");
      case "expired":
        return this.finish(flow, "expired", "expired_token", "The user did not approve the sign-in in time");
      case "error":
        return this.finish(flow, "error", "upstream_error", result.message);
      case "tokens": {
        const { tokens } = result;
        const { model } = flow.provider;
        try {
          this.deps.store.put({
            id: flow.provider.id,
            kind: model.kind,
            baseUrl: model.baseUrl,
            models: model.models,
            apiKey: tokens.accessToken,
            source: "device_flow",
            updatedAt: Date.now(),
            ...(tokens.refreshToken === null ? {} : { refreshToken: tokens.refreshToken }),
            ...(tokens.expiresInS === null ? {} : { expiresAt: Date.now() + tokens.expiresInS * 1000 }),
          });
        } catch (err) {
          return this.finish(flow, "error", "persist_failed", (err as Error).message);
        }
        return this.finish(flow, "authorized");
      }
    }
  }

  private finish(flow: Flow, status: FlowStatus, errorKind?: FlowView["errorKind"], hint?: string): void {
    flow.status = status;
    flow.finishedAt = Date.now();
    if (errorKind) flow.errorKind = errorKind;
    if (hint) flow.hint = hint;
    clearTimeout(flow.timer);
    flow.abort.abort();
    this.deps.logger.info("device flow ended", { deviceFlowId: flow.id, providerId: flow.provider.id, status, ...(errorKind ? { errorKind } : {}) });
  }

  /** Drops finished flows older than FINISHED_KEEP_MS, and the oldest finished past MAX_KEPT_FLOWS. */
  private sweep(): void {
    const now = Date.now();
    const finished = [...this.flows.values()].filter((f) => f.finishedAt !== undefined).sort((a, b) => a.finishedAt! - b.finishedAt!);
    for (const f of finished) if (now - f.finishedAt! >= FINISHED_KEEP_MS || this.flows.size > MAX_KEPT_FLOWS) this.flows.delete(f.id);
  }
}
