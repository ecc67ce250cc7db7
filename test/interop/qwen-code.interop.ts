/**
 * The interop scenario (`scenario.ts`) with Qwen Code 0.24.4 (`cli.js --acp`) against the mock's
 * OpenAI chat-completions dialect: OPENAI_API_KEY/OPENAI_BASE_URL/OPENAI_MODEL, QWEN_HOME in the
 * scratch home, and a workspace `.qwen/settings.json` whose approval mode `default` asks before writes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { interopScenario } from "./scenario.ts";

interopScenario({
  name: "qwen-code",
  setup({ mock, workspace, home }) {
    mkdirSync(join(workspace, ".qwen"), { recursive: true });
    writeFileSync(join(workspace, ".qwen", "settings.json"), JSON.stringify({ tools: { approvalMode: "default" } }));
    return { OPENAI_API_KEY: "dummy-key", OPENAI_BASE_URL: mock.baseUrl, OPENAI_MODEL: "mock-model", QWEN_HOME: join(home, ".qwen") };
  },
  writeCall: (path, content) => ({ name: "write_file", args: { file_path: path, content } }),
  allowOnce: () => "proceed_once",
});
