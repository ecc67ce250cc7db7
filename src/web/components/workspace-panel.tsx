/** The workspace panel: one section per workspace status route, each a list of status cells. */
import { useEffect, useState } from "preact/hooks";
import type { StatusCell, WorkspaceSection, WorkspaceStatus } from "../../client/index.ts";
import { client, describe, reportAuth } from "../app-state.ts";
import { inlinePlain } from "../inline-plain.ts";
import { workspaceOption } from "../workspaces.ts";

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
    client.workspaceStatus(section, workspaceOption()).then(
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

/** Sandbox variables that mean something on one platform only (a SEATBELT profile is macOS's). */
const PLATFORM_ONLY: Record<string, string> = { SEATBELT_PROFILE: "darwin" };

function Cells({ body }: { body: WorkspaceStatus }) {
  const all = cellLists(body);
  const platform = all.find((c) => c.kind === "platform")?.name;
  const cells = all.filter((c) => !(typeof c.name === "string" && PLATFORM_ONLY[c.name] && platform && PLATFORM_ONLY[c.name] !== platform));
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
              <span class={isVariable(c) ? "cell-name variable" : "cell-name"}>{cellName(c)}</span>
              <span class="cell-status">{cellStatus(c)}</span>
              {cellValue(c) && <span class="cell-value">{cellValue(c)}</span>}
              {(c.error || c.hint) && <span class="cell-hint">{[c.error, c.hint].filter(Boolean).join(": ")}</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** Names for the daemon's cell kinds (`node_version` reports the runtime svc runs on: Bun). */
const KIND_NAMES: Record<string, string> = {
  node_version: "Runtime (Bun)",
  cli_entry: "CLI entry",
  workspace_dir: "Workspace folder",
  workspace_trust: "Folder trust",
  mcp_discovery: "MCP discovery",
  tool_registry: "Tool registry",
  npm: "npm",
  git: "git",
  ripgrep: "ripgrep",
};

/** A cell named by an environment variable: shown as written (underscores and all). */
const isVariable = (c: StatusCell) => typeof c.name === "string" && /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/.test(c.name);

function cellName(c: StatusCell): string {
  if (typeof c.name === "string") return isVariable(c) ? c.name : c.name.replace(/_/g, " ");
  if (typeof c.authType === "string") return c.authType;
  const kind = String(c.kind);
  return KIND_NAMES[kind] ?? kind.charAt(0).toUpperCase() + kind.slice(1).replace(/_/g, " ");
}

/** A variable's status is whether it is set (the daemon says "disabled" for unset). */
function cellStatus(c: StatusCell): string {
  if (typeof c.present === "boolean") return c.present ? "set" : "not set";
  return String(c.status ?? "").replace(/_/g, " ");
}

function cellValue(c: StatusCell): string {
  if (typeof c.value === "string") return c.value;
  const detail = c.detail as Record<string, unknown> | undefined;
  if (detail && typeof detail.version === "string") return detail.version;
  if (detail && typeof detail.path === "string") return detail.path;
  if (typeof c.description === "string") return inlinePlain(c.description);
  if (Array.isArray(c.models)) return `${c.models.length} models`;
  return "";
}
