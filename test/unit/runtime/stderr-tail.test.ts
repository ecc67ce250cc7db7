/** An agent's stderr on its way to the log: known secrets are replaced in every line logged or kept. */
import { describe, expect, test } from "bun:test";
import { stderrSecrets } from "../../../src/runtime/stderr-secrets.ts";
import { StderrTail } from "../../../src/runtime/stderr-tail.ts";

describe("StderrTail", () => {
  test("replaces each secret in the lines it logs and in the tail it keeps, also across chunks", () => {
    const logged: string[] = [];
    const tail = new StderrTail((line) => logged.push(line), ["sk-long-secret-value", "tok-12345678"]);
    tail.push("key sk-long-");
    tail.push("secret-value rejected\nbearer tok-12345678 and \u001b[31mtok-1234\u001b[0m5678\n");
    expect(logged).toEqual(["key [redacted] rejected", "bearer [redacted] and [redacted]"]);
    expect(tail.tail()).toEqual(logged);
  });
});

describe("stderrSecrets", () => {
  test("the token and credential-named variables, longest first; short values and other names are left alone", () => {
    const env = { OPENAI_API_KEY: "sk-aaaaaaaa", GITHUB_TOKEN: "ghp_bbbbbbbbbbbb", DB_PASSWORD: "pw-cccccccc", X_SECRET: "short", PATH: "/usr/bin:/bin/long/enough" };
    expect(stderrSecrets(env, "daemon-token-123456789")).toEqual(["daemon-token-123456789", "ghp_bbbbbbbbbbbb", "sk-aaaaaaaa", "pw-cccccccc"]);
    expect(stderrSecrets({}, null)).toEqual([]);
  });
});
