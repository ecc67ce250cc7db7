/**
 * `GET /workspace/{env,preflight,mcp,skills,providers,tools}`: the snapshots of
 * `workspace-snapshots.ts`. None starts an agent child; an agent that fails or is slow shows in the
 * envelope's `errors`, never as an error status. `/workspace/tools` carries no capability tag: the
 * spec's route table gives it none, and its Versioning list names no tag for it (the tag
 * `workspace_tool_toggle` is its mutation route's); inventing one would advertise a name no client
 * gates on, so it stays untagged, reachable on every daemon of this version.
 */
import { Elysia, type Static } from "elysia";
import { capability } from "../capability.ts";
import { WORKSPACE_CELLS, apiModelNames } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";
import { WorkspaceCells } from "../schemas/workspace-cells.ts";
import type { SectionName, SnapshotSource } from "../workspace-snapshots.ts";
import { McpSnapshot, ProvidersSnapshot, SkillsSnapshot, ToolsSnapshot } from "./workspace-status-schemas.ts";

const errors = errorResponses();

export const workspaceStatusRoutes = (snapshots: readonly SnapshotSource[]) => {
  const sections = new Map(snapshots.map((s) => [s.name, s]));
  /** The section's snapshot, typed as the route's schema: the builders assemble exactly those members. */
  const read =
    <T>(name: SectionName) =>
    () =>
      sections.get(name)!.read() as Promise<T>;

  return new Elysia({ name: "routes/workspace-status" })
    .use(apiModelNames)
    .get("/workspace/env", read<Static<typeof WorkspaceCells>>("env"), {
      response: { 200: WORKSPACE_CELLS, ...errors },
      detail: capability("workspace_env", { summary: "Runtime, platform, proxy and secret-presence cells" }),
    })
    .get("/workspace/preflight", read<Static<typeof WorkspaceCells>>("preflight"), {
      response: { 200: WORKSPACE_CELLS, ...errors },
      detail: capability("workspace_preflight", { summary: "Readiness checks of the daemon, then the live agent's own" }),
    })
    .get("/workspace/mcp", read<Static<typeof McpSnapshot>>("mcp"), {
      response: { 200: McpSnapshot, ...errors },
      detail: capability("workspace_mcp", { summary: "MCP servers and client budgets, as the live agent reports them" }),
    })
    .get("/workspace/skills", read<Static<typeof SkillsSnapshot>>("skills"), {
      response: { 200: SkillsSnapshot, ...errors },
      detail: capability("workspace_skills", { summary: "Skills the live agent offers (never their bodies or paths)" }),
    })
    .get("/workspace/providers", read<Static<typeof ProvidersSnapshot>>("providers"), {
      response: { 200: ProvidersSnapshot, ...errors },
      detail: capability("workspace_providers", { summary: "Model providers and models, grouped by auth type (never keys or addresses)" }),
    })
    .get("/workspace/tools", read<Static<typeof ToolsSnapshot>>("tools"), {
      response: { 200: ToolsSnapshot, ...errors },
      detail: { summary: "Tools the live agent registers, and whether each is enabled" },
    });
};
