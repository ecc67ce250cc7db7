/** An agent's stderr on its way to the log: known secrets are replaced in every line logged or kept. */
import { describe, expect, test } from "bun:test";
import { stderrSecrets } from "../../../src/runtime/stderr-secrets.ts";
import { MAX_LINE_CHARS, StderrTail } from "../../../src/runtime/stderr-tail.ts";

describe("StderrTail", () => {
  test("replaces each secret in the lines it logs and in the tail it keeps, also across chunks", () => {
    const logged: string[] = [];
    const tail = new StderrTail((line) => logged.push(line), ["sk-long-secret-value", "tok-12345678"]);
    tail.push("key sk-long-");
    tail.push("secret-value rejected\nbearer tok-12345678 and \u001b[31mtok-1234\u001b[0m5678\n");
    expect(logged).toEqual(["key [redacted] rejected", "bearer [redacted] and [redacted]"]);
    expect(tail.tail()).toEqual(logged);
  });

  test("a secret straddling the MAX_LINE_CHARS cut is replaced before the line is cut: no part of it is logged", () => {
    const secret = "sk-straddle-0123456789abcdef";
    for (const offset of [5, 1, secret.length - 1]) {
      const logged: string[] = [];
      const tail = new StderrTail((line) => logged.push(line), [secret]);
      // The secret starts `offset` characters before the cut.
      tail.push(`${"x".repeat(MAX_LINE_CHARS - offset)}${secret} and more\n`);
      // Replaced whole, then cut: the marker's start is what remains of it.
      expect(logged).toEqual([`${"x".repeat(MAX_LINE_CHARS - offset)}[redacted] and more`.slice(0, MAX_LINE_CHARS)]);
    }
  });

  test("an endless line cut inside a secret (the rest never read) keeps no start of it, even when escape sequences pulled it before the cut", () => {
    const secret = "sk-endless-0123456789abcdef";
    const logged: string[] = [];
    const tail = new StderrTail((line) => logged.push(line), [secret]);
    // The read stops inside the secret; the rest of the line is dropped unseen. The colour codes
    // (taken out before the line is cut) bring the secret's start well before MAX_LINE_CHARS.
    const colours = "\u001b[31m".repeat(100);
    const line = `${colours}${"y".repeat(MAX_LINE_CHARS + secret.length - 4 - colours.length)}${secret}${"z".repeat(5000)}`;
    for (let i = 0; i < line.length; i += 700) tail.push(line.slice(i, i + 700));
    tail.push("\n");
    // What was read ends in the secret's first 4 characters: they are dropped.
    expect(logged).toEqual(["y".repeat(MAX_LINE_CHARS + secret.length - 4 - colours.length)]);
  });
});

describe("stderrSecrets", () => {
  test("the token and credential-named variables, longest first; short values and other names are left alone", () => {
    const env = { OPENAI_API_KEY: "sk-aaaaaaaa", GITHUB_TOKEN: "ghp_bbbbbbbbbbbb", DB_PASSWORD: "pw-cccccccc", X_SECRET: "short", PATH: "/usr/bin:/bin/long/enough" };
    expect(stderrSecrets({ baseEnv: env, modelEndpoint: null }, "daemon-token-123456789")).toEqual(["daemon-token-123456789", "ghp_bbbbbbbbbbbb", "sk-aaaaaaaa", "pw-cccccccc"]);
    expect(stderrSecrets({ baseEnv: {}, modelEndpoint: null }, null)).toEqual([]);
  });
});
