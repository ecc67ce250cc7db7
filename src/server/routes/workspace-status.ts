/** `GET /workspace/env` and `GET /workspace/preflight`: answered from daemon state, never starting a child. */
import { Elysia } from "elysia";
import { envCells } from "../../workspace/env-cells.ts";
import { preflightCells } from "../../workspace/preflight-cells.ts";
import { cliEntryStatus } from "../../runtime/cli-entry.ts";
import { ToolProber } from "../../runtime/tool-probe.ts";
import type { AppDeps } from "../app-deps.ts";
import { capability } from "../capability.ts";
import { WORKSPACE_CELLS, apiModels } from "../schemas/api-models.ts";
import { errorResponses } from "../schemas/error-statuses.ts";

const response = { 200: WORKSPACE_CELLS, ...errorResponses() } as const;

export const workspaceStatusRoutes = (deps: AppDeps) => {
  const { config } = deps;
  const prober = new ToolProber(config.agent.baseEnv.PATH);
  const primary = deps.runtimes.primary;
  const runtime = { name: "bun", version: Bun.version, platform: process.platform, arch: process.arch };

  return new Elysia({ name: "routes/workspace-status" })
    .use(apiModels)
    .get(
      "/workspace/env",
      () => ({
        v: 1 as const,
        workspaceCwd: config.workspace,
        initialized: primary.channelLive,
        acpChannelLive: primary.channelLive,
        cells: envCells(config.agent.baseEnv, runtime),
      }),
      { response, detail: capability("workspace_env", { summary: "Runtime, platform, proxy and secret-presence cells" }) },
    )
    .get(
      "/workspace/preflight",
      async () => ({
        v: 1 as const,
        workspaceCwd: config.workspace,
        initialized: primary.channelLive,
        acpChannelLive: primary.channelLive,
        cells: preflightCells({
          runtimeVersion: Bun.version,
          entry: cliEntryStatus(config.agent),
          startFailure: primary.lastStartFailure,
          workspace: config.workspace,
          tools: await prober.probe(),
          channelLive: primary.channelLive,
        }),
      }),
      { response, detail: capability("workspace_preflight", { summary: "Readiness checks of the daemon and the agent" }) },
    );
};
