import { describe, expect, test } from "bun:test";
import { childEnv } from "../../../src/runtime/child-env.ts";

describe("childEnv", () => {
  test("drops the daemon's token, agent-entry settings, an inherited family marker and runtime option variables, keeps the rest", () => {
    const env = childEnv(
      {
        PATH: "/usr/bin",
        OPENAI_API_KEY: "k",
        SVC_SERVER_TOKEN: "secret",
        SVC_CLI_ENTRY: "/x.js",
        SVC_CLI_ARGS: "--acp",
        SVC_AGENT_FAMILY: "an outer daemon's marker",
        BUN_OPTIONS: "--cpu-prof",
        BUN_INSPECT: "ws://x",
        NODE_OPTIONS: "--require /evil.js",
        UNSET: undefined,
      },
      { QWEN_CODE_NO_RELAUNCH: "true" },
    );
    expect(env).toEqual({ PATH: "/usr/bin", OPENAI_API_KEY: "k", QWEN_CODE_NO_RELAUNCH: "true" });
  });

  test("profile additions win over inherited values", () => {
    expect(childEnv({ QWEN_CODE_NO_RELAUNCH: "false" }, { QWEN_CODE_NO_RELAUNCH: "true" })).toEqual({ QWEN_CODE_NO_RELAUNCH: "true" });
  });
});
