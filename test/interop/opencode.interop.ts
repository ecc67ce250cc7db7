/**
 * The interop scenario (`scenario.ts`) with OpenCode 1.18.33 (`opencode acp`, a native binary)
 * against the mock's OpenAI chat-completions dialect: a scratch OPENCODE_CONFIG naming an
 * OpenAI-compatible provider (`baseURL` the mock's `/v1`) as the model, with `permission.edit`
 * `ask`; models.dev fetch, auto-update, sharing, default plugins and LSP downloads off.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { interopScenario } from "./scenario.ts";

interopScenario({
  name: "opencode",
  setup({ mock, home }) {
    const config = join(home, "opencode.json");
    writeFileSync(
      config,
      JSON.stringify({
        model: "mock/mock-model",
        small_model: "mock/mock-model",
        provider: {
          mock: { npm: "@ai-sdk/openai-compatible", name: "Mock", options: { baseURL: mock.baseUrl, apiKey: "dummy-key" }, models: { "mock-model": { name: "mock-model" } } },
        },
        permission: { edit: "ask" },
        autoupdate: false,
        share: "disabled",
      }),
    );
    return {
      OPENCODE_CONFIG: config,
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    };
  },
  writeCall: (path, content) => ({ name: "write", args: { filePath: path, content } }),
  allowOnce: (options) => options.find((o) => o.kind === "allow_once")!.optionId,
});
