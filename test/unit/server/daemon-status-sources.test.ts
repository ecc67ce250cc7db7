/**
 * `/daemon/status` over HTTP with its sources stubbed (the app's `statusSources`): workspace
 * sections that fail or hang, the MCP budget getter, and memory use read from the sampler rather
 * than per request. In process only: the sources are handed to the app, not to a binary.
 */
import { describe, expect, test } from "bun:test";
import type { StatusSources } from "../../../src/server/app-deps.ts";
import { createApp } from "../../../src/server/app.ts";
import type { McpBudgetState } from "../../../src/runtime/mcp-budget-state.ts";
import { SECTION_TIMEOUT_MS } from "../../../src/server/status-sections.ts";
import { testAppDeps } from "../../helpers/app-deps.ts";
import { underContract } from "../../helpers/contract.ts";
import { testServerConfig } from "../../helpers/daemon.ts";
import { jsonRequest } from "../../helpers/json-request.ts";
import { tempDir } from "../../helpers/temp-dir.ts";

type Json = Record<string, any>;

async function statusApp(sources: StatusSources) {
  const dir = tempDir("svc-status-");
  const { config, logger } = testServerConfig(dir.path, []);
  const deps = { ...testAppDeps(config, logger), statusSources: sources };
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, reusePort: false, development: false, fetch: createApp(deps).fetch });
  const url = `http://127.0.0.1:${server.port}`;
  const offContract = underContract(url);
  return {
    status: async (query = "") => {
      const reply = await jsonRequest<Json>(url, "GET", `/daemon/status${query}`);
      expect(reply.status).toBe(200);
      return reply.body;
    },
    async [Symbol.asyncDispose]() {
      deps.sessions.shutdown();
      await deps.runtimes.stop();
      await server.stop(true);
      offContract();
      await dir[Symbol.asyncDispose]();
    },
  };
}

describe("workspace sections in full", () => {
  test("a section that throws or hangs is unavailable with workspace_status_unavailable; the others answer", async () => {
    const cells = { v: 1, workspaceCwd: "/w", initialized: false, acpChannelLive: false, cells: [{ kind: "node_version", status: "ok", locality: "daemon" }] };
    await using app = await statusApp({
      sections: [
        { name: "env", read: async () => cells },
        {
          name: "skills",
          read: async () => {
            throw new Error("agent went away");
          },
        },
        { name: "tools", read: () => new Promise(() => {}) },
      ],
    });
    const body = await app.status("?detail=full");
    expect(body.full.workspace.env).toMatchObject({ status: "ok", summary: { initialized: false, cellsCount: 1 }, data: cells });
    expect(body.full.workspace.skills).toMatchObject({ status: "unavailable", error: { kind: "error", message: "agent went away" } });
    expect(body.full.workspace.tools).toMatchObject({ status: "unavailable", error: { kind: "timeout", message: `no answer within ${SECTION_TIMEOUT_MS} ms` } });
    expect(body.issues.map((i: Json) => [i.code, i.severity, i.section])).toEqual([
      ["workspace_status_unavailable", "warning", "skills"],
      ["workspace_status_unavailable", "warning", "tools"],
    ]);
    expect(body.status).toBe("warning");

    // Summary reads no section.
    const summary = await app.status();
    expect(summary.full).toBeUndefined();
    expect(summary.issues).toEqual([]);
  });

  test("a preflight section in error raises preflight_error", async () => {
    await using app = await statusApp({
      sections: [{ name: "preflight", read: async () => ({ v: 1, workspaceCwd: "/w", initialized: false, cells: [{ kind: "cli_entry", status: "error", error: "missing" }] }) }],
    });
    const body = await app.status("?detail=full");
    expect(body.issues).toEqual([{ code: "preflight_error", severity: "error", section: "preflight", message: "Workspace preflight reports an error." }]);
    expect(body.status).toBe("error");
  });
});

describe("the MCP budget getter", () => {
  test("raises mcp_budget_warning, then mcp_budget_exhausted, in summary and full", async () => {
    let state: McpBudgetState | null = null;
    await using app = await statusApp({ sections: [], mcpBudget: () => state });
    expect((await app.status()).issues).toEqual([]);
    state = { liveCount: 3, budget: 4, refusedCount: 0, mode: "enforce" };
    for (const query of ["", "?detail=full"]) expect((await app.status(query)).issues).toEqual([expect.objectContaining({ code: "mcp_budget_warning", severity: "warning", section: "mcp" })]);
    state = { liveCount: 4, budget: 4, refusedCount: 2, mode: "enforce" };
    const body = await app.status();
    expect(body.issues).toEqual([expect.objectContaining({ code: "mcp_budget_exhausted", severity: "error", section: "mcp" })]);
    expect(body.status).toBe("error");
  });
});

describe("memory use", () => {
  test("is sampled: many status reads do not read it each time", async () => {
    await using app = await statusApp({ sections: [] });
    const real = process.memoryUsage;
    let reads = 0;
    process.memoryUsage = Object.assign(() => {
      reads++;
      return real();
    }, real);
    try {
      for (let i = 0; i < 50; i++) expect((await app.status()).runtime.memory.rssBytes).toBeGreaterThan(0);
      // One read when the first request starts the sampler, then one per sampling interval. The count is
      // of every caller in this process: samplers of apps earlier tests built tick on for a while too.
      expect(reads).toBeLessThan(10);
    } finally {
      process.memoryUsage = real;
    }
  });
});
