/**
 * MCP servers: their status as the live agent reports it (`/workspace/mcp`), with the client
 * budget the guardrails hold them to, a restart per server where the daemon advertises it, and
 * the server settings (`mcp-config.tsx`) where it advertises `workspace_mcp_manage`.
 */
import { useState } from "preact/hooks";
import type { StatusCell, WorkspaceStatus } from "../../../client/index.ts";
import { client } from "../../app-state.ts";
import { visibleText } from "../../visible-text.ts";
import { Visible } from "../visible-text.tsx";
import { McpConfig } from "./mcp-config.tsx";
import { attempt, LoadedView, OutcomeLine, Section, useLoad, type Outcome, StatusErrors } from "./shared.tsx";

export function McpSection({ restart, manage }: { restart: boolean; manage: boolean }) {
  const [state, reload] = useLoad(() => client.workspaceStatus("mcp"));
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);

  async function restartOne(name: string) {
    setBusy(true);
    const done = await attempt(() => client.restartMcpServer(name), (a) => `${visibleText(String(a.serverName))} restarted.`, "Restarting MCP servers", setOutcome);
    setBusy(false);
    if (done) reload();
  }

  return (
    <Section id="mcp" title="MCP servers">
      <LoadedView state={state} what="MCP status">
        {(body) => (
          <>
            {!body.initialized && <p class="hint">No agent has started in this workspace yet; server status shows once a session runs.</p>}
            <Budget body={body} />
            <ServerList servers={(Array.isArray(body.servers) ? body.servers : []) as StatusCell[]} restart={restart ? restartOne : undefined} busy={busy} />
            <StatusErrors errors={body.errors} />
          </>
        )}
      </LoadedView>
      <OutcomeLine outcome={outcome} />
      {manage ? <McpConfig onChanged={reload} /> : <p class="hint">Adding, editing and removing servers: not available from this daemon.</p>}
    </Section>
  );
}

const num = (v: unknown) => (typeof v === "number" ? v : undefined);

/** The guardrail budget: live clients against the budget, the mode, and per-scope cells. */
function Budget({ body }: { body: WorkspaceStatus }) {
  const count = num(body.clientCount);
  const budget = num(body.clientBudget);
  const mode = typeof body.budgetMode === "string" ? body.budgetMode : undefined;
  const cells = (Array.isArray(body.budgets) ? body.budgets : []) as StatusCell[];
  if (count === undefined && budget === undefined && cells.length === 0) return <p class="hint">The agent reports no client budget.</p>;
  return (
    <div class="settings-budget" role="group" aria-label="Client budget">
      <p>
        Clients: {count ?? "?"}
        {budget !== undefined ? ` of ${budget}` : ""}
        {mode ? ` (mode ${mode})` : ""}
      </p>
      {cells.map((c, i) => (
        <p key={i} class="settings-meta">
          <Visible text={`${typeof c.scope === "string" ? c.scope : "budget"}: ${num(c.liveCount) ?? "?"} of ${num(c.budget) ?? "?"}${typeof c.mode === "string" ? `, ${c.mode}` : ""}${num(c.refusedCount) ? `, ${num(c.refusedCount)} refused` : ""} — ${c.status}`} />
        </p>
      ))}
    </div>
  );
}

function ServerList({ servers, restart, busy }: { servers: StatusCell[]; restart: ((name: string) => Promise<void>) | undefined; busy: boolean }) {
  if (servers.length === 0) return <p class="empty">No MCP servers.</p>;
  return (
    <ul class="settings-list" aria-label="MCP servers">
      {servers.map((s, i) => {
        const name = typeof s.name === "string" ? s.name : "";
        const state = typeof s.mcpStatus === "string" ? s.mcpStatus : String(s.status);
        const extra = [typeof s.transport === "string" ? s.transport : "", s.disabled === true ? `disabled${typeof s.disabledReason === "string" ? ` (${s.disabledReason})` : ""}` : "", typeof s.extensionName === "string" ? `from ${s.extensionName}` : ""];
        return (
          <li key={i} class="settings-row">
            <span class={`dot ${s.status}`} aria-hidden="true" />
            <span class="settings-name">
              <Visible text={name || "(unnamed)"} />
            </span>
            <span class="settings-meta">
              <Visible text={[state, ...extra].filter(Boolean).join(" · ")} />
            </span>
            {(s.error || s.hint) && (
              <span class="settings-desc">
                <Visible text={[s.error, s.hint].filter(Boolean).join(": ")} />
              </span>
            )}
            {restart && name && (
              <button type="button" disabled={busy} onClick={() => void restart(name)}>
                Restart<span class="visually-hidden"> {visibleText(name)}</span>
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
}
