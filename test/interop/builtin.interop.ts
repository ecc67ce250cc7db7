/**
 * The interop scenario (`scenario.ts`) with the built-in agent (no SVC_CLI_ENTRY), as the control:
 * the mock's OpenAI chat-completions dialect through OPENAI_API_KEY/OPENAI_BASE_URL/OPENAI_MODEL,
 * and a workspace `.svc/settings.json` whose approval mode `default` asks before writes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { interopScenario } from "./scenario.ts";

interopScenario({
  name: "builtin",
  setup({ mock, workspace }) {
    mkdirSync(join(workspace, ".svc"), { recursive: true });
    writeFileSync(join(workspace, ".svc", "settings.json"), JSON.stringify({ tools: { approvalMode: "default" } }));
    return { OPENAI_API_KEY: "dummy-key", OPENAI_BASE_URL: mock.baseUrl, OPENAI_MODEL: "mock-model" };
  },
  writeCall: (path, content) => ({ name: "write_file", args: { file_path: path, content } }),
  allowOnce: () => "proceed_once",
});
