/**
 * The hooks' extension methods (the reference agent's `qwen/status/{workspace,session}/hooks`
 * shapes, under `svc/`), and the control that adds or removes a session's own hooks:
 * - `svc/status/workspace/hooks {cwd}` → `{v, workspaceCwd, initialized, disabled, hooks[], events}`;
 * - `svc/status/session/hooks {sessionId}` → `{v, sessionId, workspaceCwd, disabled, hooks[]}`;
 * - `svc/control/session/hooks/add {sessionId, eventName, matcher?, hook: {command, timeout?, name?, description?}}`
 *   → `{hook}` (a refused definition or one past the session's bound: `-32602` with the reason);
 * - `svc/control/session/hooks/remove {sessionId, hookId}` → `{hookId, removed}`.
 * Hooks show as cells without their command (`hooks.ts`). Unknown session `-32002`.
 */
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentSession } from "../agent-session.ts";
import { checkCwd, fields } from "../status-methods.ts";
import { HookRefused, type Hooks } from "./hooks.ts";

export interface HookMethodDeps {
  readonly hooks: Hooks;
  readonly workspace: string;
  readonly session: (sessionId: string) => AgentSession;
}

const addParams: acp.ParamsParser<{ sessionId: string; eventName: unknown; matcher?: unknown; hook: Record<string, unknown> }> = (params) => {
  const p = fields("sessionId")(params) as Record<string, unknown>;
  const hook = p.hook;
  if (hook === null || typeof hook !== "object" || Array.isArray(hook)) throw acp.RequestError.invalidParams({ field: "hook" }, "hook must be an object");
  return { sessionId: p.sessionId as string, eventName: p.eventName, matcher: p.matcher, hook: hook as Record<string, unknown> };
};

export function registerHookMethods(app: acp.AgentApp, deps: HookMethodDeps): void {
  const { hooks, workspace } = deps;
  app
    .onRequest("svc/status/workspace/hooks", fields("cwd"), ({ params }) => {
      checkCwd(params.cwd, workspace);
      return { v: 1, workspaceCwd: workspace, initialized: true, ...hooks.workspaceStatus() };
    })
    .onRequest("svc/status/session/hooks", fields("sessionId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { v: 1, sessionId: session.id, workspaceCwd: workspace, ...hooks.sessionStatus(session.id) };
    })
    .onRequest("svc/control/session/hooks/add", addParams, ({ params }) => {
      const session = deps.session(params.sessionId);
      try {
        return { hook: hooks.add(session.id, { event: params.eventName, matcher: params.matcher, hook: params.hook }) };
      } catch (err) {
        if (err instanceof HookRefused) throw acp.RequestError.invalidParams({ errorKind: "invalid_hook" }, err.message);
        throw err;
      }
    })
    .onRequest("svc/control/session/hooks/remove", fields("sessionId", "hookId"), ({ params }) => {
      const session = deps.session(params.sessionId);
      return { hookId: params.hookId, removed: hooks.remove(session.id, params.hookId) };
    });
}
