/**
 * The interop scenario (`scenario.ts`) with Claude Code through `@agentclientprotocol/claude-agent-acp`
 * against the mock's Anthropic Messages dialect: ANTHROPIC_BASE_URL (the mock, no `/v1`) and a dummy
 * ANTHROPIC_API_KEY; telemetry, auto-update and other non-essential traffic off. With no
 * `permissions.defaultMode` a session starts in `auto` (acceptEdits on a model without Auto) and
 * writes without asking, so the workspace's `.claude/settings.json` sets `default`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { interopScenario } from "./scenario.ts";

interopScenario({
  name: "claude",
  setup({ mock, workspace }) {
    mkdirSync(join(workspace, ".claude"), { recursive: true });
    writeFileSync(join(workspace, ".claude", "settings.json"), JSON.stringify({ permissions: { defaultMode: "default" } }));
    return {
        ANTHROPIC_BASE_URL: mock.url,
        ANTHROPIC_API_KEY: "dummy-key",
        ANTHROPIC_MODEL: "mock-model",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1",
        // As root, an IS_SANDBOX inherited from the host (e.g. "yes") makes the adapter offer bypass
        // while Claude Code refuses it (only "1" counts there): session/new fails with bypass_root.
        IS_SANDBOX: "",
      };
  },
  writeCall: (path, content) => ({ name: "Write", args: { file_path: path, content } }),
  allowOnce: (options) => options.find((o) => o.kind === "allow_once")!.optionId,
});
