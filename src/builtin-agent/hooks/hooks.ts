/**
 * The built-in agent's hooks: which apply to a session's event, running them, and what the status
 * methods show of them.
 *
 * Which apply: the user's (data dir settings) always; the project's (`.svc/settings.json`) only
 * while the workspace is trusted, read at the moment of the event, so a trust change applies at
 * the next one; the session's own (added through the daemon's API, at most MAX_SESSION_HOOKS, kept
 * in memory for the session's life); none when `disableAllHooks` is set. Tool events filter on the
 * hook's matcher.
 *
 * Running: every applicable hook at once, each through the agent's shell runner (`/bin/sh -c` in
 * the workspace, its own session and process group, the commands' scrubbed environment plus
 * `SVC_PROJECT_DIR`/`CLAUDE_PROJECT_DIR`/`QWEN_PROJECT_DIR`), the event's JSON on stdin, stdout and
 * stderr each kept up to HOOK_OUTPUT_CAP_BYTES. At its time limit, or when `signal` aborts (the
 * turn was cancelled), its group and everything it started are killed (`shell-runner.ts`). Their
 * verdicts merge in definition order (`hook-decision.ts`).
 *
 * Status (spec "Status payloads never carry … hook definitions"): a hook shows as its event,
 * matcher, name, description, time limit, source and whether it runs; never its command.
 */
import { HOOK_EVENT_INFO, matchesTool, parseHookDefinition, type HookDefinition, type HookEvent, type HooksSettings } from "../../config/hooks-config.ts";
import type { ShellRunner } from "../tools/shell-runner.ts";
import { mergeVerdicts, verdictOf, type HookVerdict } from "./hook-decision.ts";

/** Bytes of stdout, and of stderr, kept per hook run; the rest is drained and dropped. */
export const HOOK_OUTPUT_CAP_BYTES = 64 * 1024;
/** Hooks one session may add through the API; one more is refused. */
export const MAX_SESSION_HOOKS = 32;

/** A hook as the status methods show it (never its command). */
export interface HookCell {
  readonly kind: "hook";
  readonly eventName: HookEvent;
  readonly config: { readonly type: "command"; readonly timeout: number; readonly name?: string; readonly description?: string };
  readonly source: HookDefinition["source"];
  readonly matcher?: string;
  readonly enabled: boolean;
  readonly disabledReason?: "untrusted_workspace" | "all_hooks_disabled";
  readonly hookId?: string;
}

export class HookRefused extends Error {}

export class Hooks {
  private readonly sessions = new Map<string, HookDefinition[]>();

  constructor(
    private readonly settings: HooksSettings,
    private readonly trusted: () => boolean,
    private readonly shell: ShellRunner,
    private readonly workspace: string,
    /** The folder a session works in (a worktree session's checkout): its hooks run there and are told it. */
    private readonly rootOf: (sessionId: string) => string = () => workspace,
  ) {}

  /** The hooks that run for `event` of `sessionId` now (see the header). */
  applicable(sessionId: string, event: HookEvent, toolName?: string): HookDefinition[] {
    if (this.settings.disabled) return [];
    const all = [...this.settings.user, ...(this.trusted() ? this.settings.project : []), ...(this.sessions.get(sessionId) ?? [])];
    return all.filter((h) => h.event === event && (toolName === undefined || matchesTool(h.matcher, toolName)));
  }

  /** Runs the event's hooks with `payload` (the event's own members); their merged verdict, or null when none ran. */
  async run(event: HookEvent, sessionId: string, payload: Record<string, unknown>, signal: AbortSignal, toolName?: string): Promise<HookVerdict | null> {
    const hooks = this.applicable(sessionId, event, toolName);
    if (hooks.length === 0) return null;
    const root = this.rootOf(sessionId);
    const shell = root === this.workspace ? this.shell : this.shell.in(root);
    const input = JSON.stringify({ session_id: sessionId, cwd: root, hook_event_name: event, ...payload });
    const env = { SVC_PROJECT_DIR: root, CLAUDE_PROJECT_DIR: root, QWEN_PROJECT_DIR: root };
    const verdicts = await Promise.all(
      hooks.map(async (hook) => {
        const r = await shell.run(hook.command, { timeoutMs: hook.timeoutSeconds * 1000, signal, input, env, separate: true, capBytes: HOOK_OUTPUT_CAP_BYTES });
        return verdictOf(event, { exitCode: r.exitCode, stdout: r.output, stderr: r.errorOutput, timedOut: r.timedOut, cancelled: r.cancelled });
      }),
    );
    return mergeVerdicts(verdicts);
  }

  /** Adds a session hook from the API's fields; throws HookRefused with the reason. */
  add(sessionId: string, fields: { event: unknown; matcher?: unknown; hook: Record<string, unknown> }): HookCell {
    const list = this.sessions.get(sessionId) ?? [];
    if (list.length >= MAX_SESSION_HOOKS) throw new HookRefused(`a session has at most ${MAX_SESSION_HOOKS} hooks; remove one first`);
    const parsed = parseHookDefinition(fields, "session", `session-hook-${crypto.randomUUID()}`);
    if (typeof parsed === "string") throw new HookRefused(parsed);
    list.push(parsed);
    this.sessions.set(sessionId, list);
    return this.cell(parsed);
  }

  /** Removes a session hook; whether there was one. */
  remove(sessionId: string, hookId: string): boolean {
    const list = this.sessions.get(sessionId) ?? [];
    const at = list.findIndex((h) => h.id === hookId);
    if (at === -1) return false;
    list.splice(at, 1);
    return true;
  }

  /** Drops a closed session's hooks. */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** The workspace status members: the settings' hooks, and whether they run. */
  workspaceStatus() {
    return { disabled: this.settings.disabled, hooks: [...this.settings.user, ...this.settings.project].map((h) => this.cell(h)), events: HOOK_EVENT_INFO };
  }

  /** The session status members: the session's own hooks. */
  sessionStatus(sessionId: string) {
    return { disabled: this.settings.disabled, hooks: (this.sessions.get(sessionId) ?? []).map((h) => this.cell(h)) };
  }

  private cell(h: HookDefinition): HookCell {
    const disabledReason = this.settings.disabled ? "all_hooks_disabled" : h.source === "project" && !this.trusted() ? "untrusted_workspace" : undefined;
    return {
      kind: "hook",
      eventName: h.event,
      config: { type: "command", timeout: h.timeoutSeconds, ...(h.name === undefined ? {} : { name: h.name }), ...(h.description === undefined ? {} : { description: h.description }) },
      source: h.source,
      ...(h.matcher === null ? {} : { matcher: h.matcher }),
      enabled: disabledReason === undefined,
      ...(disabledReason === undefined ? {} : { disabledReason }),
      ...(h.source === "session" ? { hookId: h.id } : {}),
    };
  }
}
