/**
 * The interop scenario (`scenario.ts`) with Codex through `@agentclientprotocol/codex-acp` against
 * the mock's OpenAI Responses dialect: a scratch CODEX_HOME whose config.toml names a custom model
 * provider (`base_url` the mock's `/v1`, `wire_api = "responses"`), which needs no OpenAI login.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { interopScenario } from "./scenario.ts";

interopScenario({
  name: "codex",
  setup({ mock, home }) {
    const codexHome = join(home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        'model = "mock-model"',
        'model_provider = "mock"',
        "[model_providers.mock]",
        'name = "mock"',
        `base_url = "${mock.baseUrl}"`,
        'wire_api = "responses"',
        'env_key = "MOCK_API_KEY"',
        "",
      ].join("\n"),
    );
    return { CODEX_HOME: codexHome, MOCK_API_KEY: "dummy-key", INITIAL_AGENT_MODE: "read-only" };
  },
  // Codex has no file-write tool for an unknown model: `exec_command` writes, and asking for escalation outside the sandbox makes it ask.
  writeCall: (path, content) => ({
    name: "exec_command",
    args: { cmd: `printf '${content.replace(/\n/g, "\\n")}' > '${path}'`, sandbox_permissions: "require_escalated", justification: "write the file the user asked for" },
  }),
  allowOnce: (options) => options.find((o) => o.kind === "allow_once")!.optionId,
});
