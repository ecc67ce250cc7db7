/** `/workspace/env` cells (pure): proxies reduced to hosts, secrets reduced to presence, nothing else listed. */
import { describe, expect, test } from "bun:test";
import { envCells, noProxyHosts, proxyHostPort } from "../../../src/workspace/env-cells.ts";

const RUNTIME = { name: "bun", version: "1.4.4", platform: "linux", arch: "x64" };

describe("proxyHostPort", () => {
  test.each<[string, string | null]>([
    ["http://proxyuser:pa55-SECRET@proxy.corp.example:3128/some/path?token=SECRET#SECRET", "proxy.corp.example:3128"],
    ["https://user%40corp:p%40ss-SECRET@secure-proxy.example:8443", "secure-proxy.example:8443"],
    ["socks5h://sockuser:SECRET@socks.example:1080", "socks.example:1080"],
    ["baduser:SECRET@bare.example:8080", "bare.example:8080"],
    ["http://onlyuser-SECRET@proxy.example", "proxy.example"],
    ["http://u:SECRET@[::1]:9000", "[::1]:9000"],
    ["proxy.example", "proxy.example"],
    ["not a url SECRET", null],
    ["http://u:SECRET@", null],
  ])("%s → %s", (raw, expected) => {
    expect(proxyHostPort(raw)).toBe(expected);
  });
});

describe("noProxyHosts", () => {
  test("keeps hosts, domains, ports and CIDR ranges; drops schemes and credentials", () => {
    expect(noProxyHosts(" localhost, .internal.example ,10.0.0.0/8,[::1]:8080,http://u:SECRET@api.example:443,user:SECRET@db.example,,*")).toBe(
      "localhost,.internal.example,10.0.0.0/8,[::1]:8080,api.example:443,db.example,*",
    );
  });
});

describe("envCells", () => {
  const SECRET_ENV = {
    OPENAI_API_KEY: "sk-proj-SECRET-openai-0123456789",
    ANTHROPIC_API_KEY: "sk-ant-api03-SECRET-anthropic",
    GEMINI_API_KEY: "AIzaSy-SECRET-gemini",
    GOOGLE_API_KEY: "AIzaSy-SECRET-google",
    DASHSCOPE_API_KEY: "sk-SECRET-dashscope",
    OPENROUTER_API_KEY: "sk-or-v1-SECRET-openrouter",
    SVC_SERVER_TOKEN: "SECRET-daemon-token",
    AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/SECRET",
    GITHUB_TOKEN: "ghp_SECRET",
    HTTP_PROXY: "http://proxyuser:pa55-SECRET@proxy.corp.example:3128/path?token=SECRET",
    HTTPS_PROXY: "https://user%40corp:p%40ss-SECRET@secure-proxy.example:8443",
    ALL_PROXY: "socks5://sockuser:SECRET@socks.example:1080",
    NO_PROXY: "localhost,http://u:SECRET@api.example:443",
    SANDBOX: "sandbox-exec-SECRET",
  };

  test("no value of any variable but the proxies' hosts is reported", () => {
    const cells = envCells(SECRET_ENV, RUNTIME);
    expect(JSON.stringify(cells)).not.toContain("SECRET");
    expect(cells.filter((c) => c.kind === "proxy").map((c) => [c.name, c.value])).toEqual([
      ["HTTP_PROXY", "proxy.corp.example:3128"],
      ["HTTPS_PROXY", "secure-proxy.example:8443"],
      ["NO_PROXY", "localhost,api.example:443"],
      ["ALL_PROXY", "socks.example:1080"],
    ]);
  });

  test("the whitelisted secrets are listed by presence only, no other variable at all", () => {
    const cells = envCells(SECRET_ENV, RUNTIME);
    const secrets = cells.filter((c) => c.kind === "env_var");
    expect(secrets).toEqual(
      ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "DASHSCOPE_API_KEY", "OPENROUTER_API_KEY", "SVC_SERVER_TOKEN"].map((name) => ({
        kind: "env_var",
        name,
        status: "ok",
        present: true,
      })),
    );
    expect(cells.map((c) => c.name)).not.toContain("AWS_SECRET_ACCESS_KEY");
    expect(cells.map((c) => c.name)).not.toContain("GITHUB_TOKEN");
    expect(cells.filter((c) => c.kind === "sandbox")).toEqual([
      { kind: "sandbox", name: "SANDBOX", status: "ok", present: true },
      { kind: "sandbox", name: "SEATBELT_PROFILE", status: "disabled", present: false },
    ]);
  });

  test("lower-case proxy variables are read too, and reduced the same way", () => {
    const cells = envCells({ http_proxy: "http://lower:SECRET@lower-proxy.example:8080", no_proxy: "user:SECRET@db.example" }, RUNTIME);
    expect(JSON.stringify(cells)).not.toContain("SECRET");
    expect(cells.find((c) => c.name === "HTTP_PROXY")).toMatchObject({ present: true, value: "lower-proxy.example:8080" });
    expect(cells.find((c) => c.name === "NO_PROXY")).toMatchObject({ present: true, value: "db.example" });
  });

  test("an unparsable proxy is present with a warning and no value", () => {
    const cell = envCells({ HTTPS_PROXY: "::SECRET:: not a url" }, RUNTIME).find((c) => c.name === "HTTPS_PROXY");
    expect(cell).toEqual({ kind: "proxy", name: "HTTPS_PROXY", status: "warning", present: true, hint: "value is not a URL" });
  });

  test("unset and empty secrets are absent", () => {
    const cells = envCells({ OPENAI_API_KEY: "" }, RUNTIME);
    expect(cells.find((c) => c.name === "OPENAI_API_KEY")).toEqual({ kind: "env_var", name: "OPENAI_API_KEY", status: "disabled", present: false });
    expect(cells.find((c) => c.name === "ANTHROPIC_API_KEY")).toEqual({ kind: "env_var", name: "ANTHROPIC_API_KEY", status: "disabled", present: false });
  });
});
