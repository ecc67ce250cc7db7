/** The workspace panel: one section per workspace status route, each a list of status cells. */
import { useEffect, useState } from "preact/hooks";
import type { StatusCell, WorkspaceSection, WorkspaceStatus } from "../../client/index.ts";
import { client, describe, reportAuth } from "../app-state.ts";

const SECTIONS: { id: WorkspaceSection; title: string }[] = [
  { id: "preflight", title: "Preflight" },
  { id: "env", title: "Environment" },
  { id: "mcp", title: "MCP servers" },
  { id: "tools", title: "Tools" },
  { id: "skills", title: "Skills" },
  { id: "providers", title: "Providers" },
];

export function WorkspacePanel() {
  return (
    <div class="workspace">
      {SECTIONS.map((s) => (
        <StatusSection key={s.id} section={s.id} title={s.title} />
      ))}
    </div>
  );
}

type Loaded = { ok: true; body: WorkspaceStatus } | { ok: false; error: string } | null;

function StatusSection({ section, title }: { section: WorkspaceSection; title: string }) {
  const [state, setState] = useState<Loaded>(null);
  useEffect(() => {
    client.workspaceStatus(section).then(
      (body) => setState({ ok: true, body }),
      (error) => {
        reportAuth(error);
        setState({ ok: false, error: describe(error) });
      },
    );
  }, [section]);
  const headingId = `ws-${section}`;
  return (
    <section class="card ws-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {state === null ? <p class="empty">Loading…</p> : state.ok ? <Cells body={state.body} /> : <p role="alert">{state.error}</p>}
    </section>
  );
}

/** The envelope's cell lists (`cells`, `servers`, `tools`, `skills`, `providers`, `budgets`, `errors`). */
function cellLists(body: WorkspaceStatus): StatusCell[] {
  const out: StatusCell[] = [];
  for (const key of ["cells", "servers", "tools", "skills", "providers", "budgets", "errors"]) {
    const list = body[key];
    if (Array.isArray(list)) for (const c of list) if (c && typeof c === "object") out.push(c as StatusCell);
  }
  return out;
}

function Cells({ body }: { body: WorkspaceStatus }) {
  const cells = cellLists(body);
  return (
    <>
      {!body.initialized && <p class="hint">No agent has started in this workspace yet; agent-side details appear once a session runs.</p>}
      {cells.length === 0 ? (
        <p class="empty">Nothing to report.</p>
      ) : (
        <ul class="cells">
          {cells.map((c, i) => (
            <li key={i} class="cell">
              <span class={`dot ${c.status}`} aria-hidden="true" />
              <span class="cell-name">{cellName(c)}</span>
              <span class="cell-status">{String(c.status ?? "").replace(/_/g, " ")}</span>
              {cellValue(c) && <span class="cell-value">{cellValue(c)}</span>}
              {(c.error || c.hint) && <span class="cell-hint">{c.error ?? c.hint}</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

const cellName = (c: StatusCell) => String(c.name ?? c.authType ?? c.kind).replace(/_/g, " ");

function cellValue(c: StatusCell): string {
  if (typeof c.value === "string") return c.value;
  if (typeof c.present === "boolean" && c.kind === "env_var") return c.present ? "set" : "not set";
  const detail = c.detail as Record<string, unknown> | undefined;
  if (detail && typeof detail.version === "string") return detail.version;
  if (typeof c.description === "string") return c.description;
  if (Array.isArray(c.models)) return `${c.models.length} models`;
  return "";
}
