/**
 * Which values of the daemon's environment are secrets (review finding 4): credential names beyond
 * the `_API_KEY`/`_TOKEN` suffixes, and URLs with userinfo whatever their variable's name; and
 * those values are then gone from log lines and status payloads alike.
 */
import { describe, expect, test } from "bun:test";
import { redactSecrets } from "../../../src/logging/redact.ts";
import { isCredentialName, stderrSecrets } from "../../../src/runtime/stderr-secrets.ts";
import { redactTools } from "../../../src/workspace/status-redact.ts";

describe("stderrSecrets", () => {
  test("credential names: KEY, PAT, SECRET, PASSWORD/PASSWD, CREDENTIALS and AUTH words, not PATH, PWD or KEYBOARD", () => {
    for (const name of ["AWS_SECRET_ACCESS_KEY", "GH_PAT", "DB_PASSWD", "SMTP_PASSWORD", "GOOGLE_APPLICATION_CREDENTIALS", "NPM_AUTH", "AUTH_HEADER", "OPENAI_APIKEY", "NPMTOKEN", "SIGNING_KEY", "MY_SECRET_VALUE"])
      expect({ name, secret: isCredentialName(name) }).toEqual({ name, secret: true });
    for (const name of ["PATH", "PWD", "OLDPWD", "HOME", "KEYBOARD_LAYOUT", "TOKENIZERS_PARALLELISM", "XAUTHORITY", "LANG", "SHELL"])
      expect({ name, secret: isCredentialName(name) }).toEqual({ name, secret: false });
  });

  test("the values of those variables, and a URL's userinfo and password whatever its variable", () => {
    const env = {
      AWS_SECRET_ACCESS_KEY: "aws-secret-0123456789",
      GH_PAT: "github_pat_0123456789",
      DATABASE_URL: "postgres://admin:dbpass-long@db.internal/x",
      PATH: "/usr/bin:/bin/long/enough",
      PWD: "/work/some/dir",
    };
    const secrets = stderrSecrets({ baseEnv: env, modelEndpoint: null }, null);
    expect(secrets).toContain("aws-secret-0123456789");
    expect(secrets).toContain("github_pat_0123456789");
    expect(secrets).toContain("postgres://admin:dbpass-long@db.internal/x");
    expect(secrets).toContain("admin:dbpass-long");
    expect(secrets).toContain("dbpass-long");
    expect(secrets).not.toContain("/usr/bin:/bin/long/enough");
    expect(secrets).not.toContain("/work/some/dir");
    // Log redaction still works on them, longest first.
    expect(redactSecrets("connect postgres://admin:dbpass-long@db.internal/x failed; pw dbpass-long", secrets)).toBe("connect [redacted] failed; pw [redacted]");
  });

  test("the model endpoint's resolved key and its base URL's userinfo, whatever the variables are named", () => {
    const baseEnv = { GEMINI_PROD: "AIzaSuperSecretValue123", PATH: "/usr/bin" };
    const modelEndpoint = { baseUrl: "http://user:hunter2pass@127.0.0.1:9/", model: null, apiKey: "AIzaSuperSecretValue123" };
    const secrets = stderrSecrets({ baseEnv, modelEndpoint }, null);
    expect(secrets).toContain("AIzaSuperSecretValue123");
    expect(secrets).toContain("hunter2pass");
    expect(redactSecrets("Error: API key not valid: AIzaSuperSecretValue123 base=http://user:hunter2pass@127.0.0.1:9/", secrets)).toBe("Error: API key not valid: [redacted] base=[redacted]");
    // The name alone would not have caught it.
    expect(stderrSecrets({ baseEnv, modelEndpoint: null }, null)).toEqual([]);
  });

  test("a base-URL password holding `@` (raw, decoded or percent-encoded) and a key in its query are redacted in every spelling", () => {
    const modelEndpoint = { baseUrl: "http://user:p@ss-Hunter2Secret@127.0.0.1:9/?key=AIzaQueryKeySecret99", model: null, apiKey: "AIzaSuperSecretValue123" };
    const secrets = stderrSecrets({ baseEnv: {}, modelEndpoint }, null);
    for (const part of ["p@ss-Hunter2Secret", "p%40ss-Hunter2Secret", "AIzaQueryKeySecret99", "http://user:p%40ss-Hunter2Secret@127.0.0.1:9/?key=AIzaQueryKeySecret99"]) expect(secrets).toContain(part);
    // The reviewer's line: the agent printed the query key, the raw URL, the normalised href and the decoded password.
    const line = `Error: key=AIzaQueryKeySecret99 raw=${modelEndpoint.baseUrl} href=http://user:p%40ss-Hunter2Secret@127.0.0.1:9/?key=AIzaQueryKeySecret99 pw=p@ss-Hunter2Secret`;
    expect(redactSecrets(line, secrets)).toBe("Error: key=[redacted] raw=[redacted] href=[redacted] pw=[redacted]");
    // A percent-encoded query value, as written and decoded; short ones (below MIN_SECRET_CHARS) stay.
    // The normalised href (host lower-cased) is listed as well as the URL as written.
    const encoded = stderrSecrets({ baseEnv: {}, modelEndpoint: { baseUrl: "https://GW.example.net/v1?token=abc%2Fdef%2Bghi&v=1", model: null, apiKey: null } }, null);
    expect(encoded).toContain("https://gw.example.net/v1?token=abc%2Fdef%2Bghi&v=1");
    expect(encoded).toContain("abc%2Fdef%2Bghi");
    expect(encoded).toContain("abc/def+ghi");
    expect(encoded).not.toContain("1");
    // The same `@` password in an environment URL is cut at the last `@` too.
    const env = stderrSecrets({ baseEnv: { DATABASE_URL: "postgres://admin:p@ss-Hunter2Secret@db.internal/x" }, modelEndpoint: null }, null);
    expect(env).toContain("admin:p@ss-Hunter2Secret");
    expect(env).toContain("p@ss-Hunter2Secret");
    expect(env).toContain("p%40ss-Hunter2Secret");
  });

  test("an agent echoing those values in a status answer shows none of them", () => {
    const env = { AWS_SECRET_ACCESS_KEY: "aws-secret-0123456789", GH_PAT: "github_pat_0123456789", DATABASE_URL: "postgres://admin:dbpass-long@db.internal/x" };
    const out = redactTools({ tools: [{ name: "t", description: "keys aws-secret-0123456789 github_pat_0123456789; db dbpass-long" }] }, stderrSecrets({ baseEnv: env, modelEndpoint: null }, null));
    expect(out).toEqual({ tools: [{ name: "t", description: "keys [redacted] [redacted]; db [redacted]", enabled: true }] });
  });
});
