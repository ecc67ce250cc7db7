/**
 * The interop scenario (`scenario.ts`) with Gemini CLI 0.61.0 (`gemini --acp`) against the mock's
 * Google generateContent dialect: a dummy GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL (the mock, no
 * path); telemetry off. Its default approval mode asks before `write_file`.
 */
import { interopScenario } from "./scenario.ts";

interopScenario({
  name: "gemini",
  setup({ mock }) {
    return {
        GEMINI_API_KEY: "dummy-key",
        GOOGLE_GEMINI_BASE_URL: mock.url,
        GEMINI_MODEL: "mock-model",
        GEMINI_TELEMETRY_ENABLED: "false",
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      };
  },
  writeCall: (path, content) => ({ name: "write_file", args: { file_path: path, content } }),
  allowOnce: (options) => options.find((o) => o.kind === "allow_once")!.optionId,
});
