/**
 * The MCP declarations: the built-in agent's reading of the settings files (`config/mcp-settings.ts`:
 * a workspace's servers only while trusted, `mcp.excluded` disabling), the merge with an
 * extensions', and the API's strict parse, redaction and
 * restore of secrets (`workspace/mcp-server-settings.ts`).
 */
import { describe, expect, test } from "bun:test";
import { MAX_MCP_SERVERS, mcpServersFor, mcpServersOf } from "../../src/config/mcp-settings.ts";
import { DaemonError } from "../../src/errors/daemon-error.ts";
import { parseServerEntry, redactServer, REDACTED_SECRET, restoreSecrets } from "../../src/workspace/mcp-server-settings.ts";

const host = { mcpServers: { a: { command: "/bin/a" }, shared: { command: "/bin/host" } } };
const local = { mcpServers: { shared: { url: "http://127.0.0.1:1/mcp", headers: { K: "v" } }, w: { command: "/bin/w", cwd: "/tmp" } }, mcp: { excluded: ["w"] } };
const inputs = (trusted: boolean) => ({ host, hostFile: "host.json", local, workspaceFile: "ws.json", trusted });

describe("the agent's MCP declarations", () => {
  test("an untrusted workspace's servers and exclusions count for nothing", () => {
    const servers = mcpServersFor(inputs(false), []);
    expect(servers.map((s) => [s.name, s.transport, s.disabled ?? false])).toEqual([
      ["a", "stdio", false],
      ["shared", "stdio", false],
    ]);
  });

  test("a trusted workspace's servers win by name; its excluded ones are listed disabled", () => {
    const servers = mcpServersFor(inputs(true), []);
    expect(servers.map((s) => [s.name, s.transport, s.disabled ?? false])).toEqual([
      ["a", "stdio", false],
      ["shared", "http", false],
      ["w", "stdio", true],
    ]);
    expect(servers[1]).toMatchObject({ url: "http://127.0.0.1:1/mcp", headers: { K: "v" } });
    expect(servers[2]).toMatchObject({ cwd: "/tmp" });
  });

  test("httpUrl is a URL; a relative cwd or non-string header is a warning and the server left out", () => {
    const warnings: string[] = [];
    const servers = mcpServersOf("f", { mcpServers: { h: { httpUrl: "https://x/mcp" }, c: { command: "/bin/c", cwd: "rel" }, k: { url: "http://x", headers: { a: 1 } } } }, warnings);
    expect(servers.map((s) => s.name)).toEqual(["h"]);
    expect(warnings).toHaveLength(2);
  });

  test("an extension's servers come after the settings', lose a name clash, carry their extension, obey mcp.excluded, and the list is bounded", () => {
    const ext = [
      { name: "shared", transport: "stdio" as const, command: "/bin/e", args: [], env: {}, extensionName: "ext" },
      { name: "e", transport: "stdio" as const, command: "/bin/e", args: [], env: {}, extensionName: "ext" },
      { name: "off", transport: "stdio" as const, command: "/bin/e", args: [], env: {}, extensionName: "ext" },
    ];
    const merged = mcpServersFor({ ...inputs(false), host: { ...host, mcp: { excluded: ["off"] } }, extra: ext }, []);
    expect(merged.map((s) => [s.name, s.extensionName, s.disabled ?? false])).toEqual([
      ["a", undefined, false],
      ["shared", undefined, false],
      ["e", "ext", false],
      ["off", "ext", true],
    ]);
    const many = Array.from({ length: 40 }, (_, i) => ({ name: `s${i}`, transport: "stdio" as const, command: "/bin/s", args: [], env: {}, extensionName: "big" }));
    expect(mcpServersFor({ ...inputs(false), extra: many }, [])).toHaveLength(MAX_MCP_SERVERS);
  });
});

describe("the API's declarations", () => {
  const code = (raw: unknown) => {
    try {
      parseServerEntry(raw);
      return "ok";
    } catch (err) {
      return err instanceof DaemonError ? `${err.code}:${String(err.fields?.member ?? "")}` : "other";
    }
  };

  test("strict: each bad member is named, never its secret value", () => {
    expect(code({ command: "/bin/x", args: ["a"], env: { A: "1" }, cwd: "/", description: "d" })).toBe("ok");
    expect(code({ httpUrl: "https://h/mcp", headers: { "X-Key": "v" } })).toBe("ok");
    expect(code({ command: "x" })).toBe("invalid_mcp_server_config:command");
    expect(code({ command: "/bin/x", trust: true })).toBe("invalid_mcp_server_config:trust");
    expect(code({ command: "/bin/x", headers: {} })).toBe("invalid_mcp_server_config:headers");
    expect(code({ url: "ftp://h" })).toBe("invalid_mcp_server_config:url");
    expect(code({})).toBe("invalid_mcp_server_config:");
    expect(code({ command: "/bin/x", env: { A: 1 } })).toBe("invalid_mcp_server_config:env.A");
    expect(code({ command: "/bin/x", cwd: "rel" })).toBe("invalid_mcp_server_config:cwd");
    expect(code({ command: "/bin/x", description: "d".repeat(501) })).toBe("invalid_mcp_server_config:description");
    try {
      parseServerEntry({ url: "http://h", headers: { K: "secret\nvalue" } });
    } catch (err) {
      expect((err as Error).message).not.toContain("secret");
    }
  });

  test("answers show known members only, secrets as the marker; the marker sent back restores the stored value", () => {
    expect(redactServer({ command: "/bin/x", env: { A: "s" }, oauth: { clientSecret: "s" }, timeout: 1 })).toEqual({ command: "/bin/x", env: { A: REDACTED_SECRET } });
    expect(restoreSecrets({ command: "/bin/x", env: { A: REDACTED_SECRET, B: REDACTED_SECRET, C: "new" } }, { command: "/bin/x", env: { A: "kept" } })).toEqual({ command: "/bin/x", env: { A: "kept", C: "new" } });
  });

  test("a URL's credentials and query values are answered redacted and restored when sent back so", () => {
    const stored = { url: "https://alice:pw@example.com/mcp?api_key=k1&x=2" };
    const shown = redactServer(stored).url as string;
    expect(shown).not.toContain("pw");
    expect(shown).not.toContain("k1");
    expect(shown).not.toContain("alice");
    expect(restoreSecrets({ url: shown }, stored)).toEqual(stored);
  });

  test("a redacted secret never follows a changed command, arguments or URL", () => {
    const refused = (entry: Parameters<typeof restoreSecrets>[0], existing: unknown) => expect(() => restoreSecrets(entry, existing)).toThrow(expect.objectContaining({ code: "invalid_mcp_server_config" }));
    refused({ command: "/bin/sh", env: { T: REDACTED_SECRET } }, { command: "/bin/x", env: { T: "secret" } });
    refused({ command: "/bin/x", args: ["-c", "leak"], env: { T: REDACTED_SECRET } }, { command: "/bin/x", env: { T: "secret" } });
    refused({ url: "http://127.0.0.1:7/steal", headers: { A: REDACTED_SECRET } }, { url: "https://good.example/mcp", headers: { A: "secret" } });
    // A new secret with the new destination is fine.
    expect(restoreSecrets({ command: "/bin/sh", env: { T: "new" } }, { command: "/bin/x", env: { T: "secret" } })).toEqual({ command: "/bin/sh", env: { T: "new" } });
  });
});
