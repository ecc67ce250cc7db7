import { describe, expect, test } from "bun:test";
import { profileFor } from "../../src/runtime/agent-profile.ts";

describe("profileFor", () => {
  test("picks each known profile by agentInfo.name, with its extension prefix", () => {
    expect(profileFor("qwen-code")).toMatchObject({ name: "qwen-code", extensionPrefix: "qwen" });
    expect(profileFor("svc")).toMatchObject({ name: "svc", extensionPrefix: "svc" });
  });

  test("anything else, including inherited member names, is generic", () => {
    for (const name of ["", "fake-agent", "constructor", "__proto__", "toString", "SVC"]) {
      expect(profileFor(name)).toMatchObject({ name: "generic", extensionPrefix: null });
    }
  });
});
