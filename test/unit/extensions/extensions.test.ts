/**
 * Extensions on real folders: the manifest's checks and `${extensionPath}` substitution, the MCP
 * declarations and instruction files only enabled extensions give, and the install's refusals
 * (a registry source, a link, a folder holding svc's own extensions folder) and copy rules, and the
 * sweep of what a dead install left.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { extensionContextFiles, extensionMcpServers } from "../../../src/extensions/extension-contributions.ts";
import { checkSource, installFromFolder, setEnabled } from "../../../src/extensions/extension-install.ts";
import { ManifestError, parseManifest } from "../../../src/extensions/extension-manifest.ts";
import { readExtension, RECORD_FILE } from "../../../src/extensions/extension-store.ts";
import { ExtensionService } from "../../../src/extensions/index.ts";
import { DOWNLOADS_FOLDER, LEFTOVER_AGE_MS } from "../../../src/extensions/install-leftovers.ts";
import { tempDir } from "../../helpers/temp-dir.ts";
import { until } from "../../helpers/until.ts";

const manifest = (name: string, extra: Record<string, unknown> = {}) => JSON.stringify({ name, ...extra });

describe("manifest", () => {
  test("a command name is kept for the agent's PATH (folders outside the workspace)", () => {
    expect(parseManifest(manifest("kit", { mcpServers: { s: { command: "node", args: ["${extensionPath}/s.js"] } } }), "/x/kit").mcpServers.s).toMatchObject({ command: "node", args: ["/x/kit/s.js"] });
  });

  test("fields and ${extensionPath}", () => {
    const m = parseManifest(manifest("kit", { version: "2.0.0", contextFileName: ["A.md", "B.md"], mcpServers: { s: { command: "${extensionPath}${/}bin", args: ["--root=${extensionPath}"], env: { K: "v" } } } }), "/x/kit");
    expect(m).toEqual({ name: "kit", version: "2.0.0", contextFiles: ["A.md", "B.md"], mcpServers: { s: { command: `/x/kit${sep}bin`, args: ["--root=/x/kit"], env: { K: "v" } } } });
  });

  test.each([
    ["a name with a slash", manifest("a/b")],
    ["no name", "{}"],
    ["a context file outside the folder", manifest("a", { contextFileName: "../x.md" })],
    ["an http server", manifest("a", { mcpServers: { s: { url: "http://x" } } })],
    ["a bad env name", manifest("a", { mcpServers: { s: { command: "c", env: { "A=B": "v" } } } })],
    ["a relative command, which would run the workspace's own file (review R16)", manifest("a", { mcpServers: { s: { command: "./run.sh" } } })],
    ["a relative command in a folder", manifest("a", { mcpServers: { s: { command: "bin/server" } } })],
    ["a name starting with a dot, which the store never lists (review R16)", manifest(".hidden")],
    ["not JSON", "{"],
  ])("refused: %s", (_, text) => {
    expect(() => parseManifest(text, "/x")).toThrow(ManifestError);
  });
});

describe("install and contributions", () => {
  test("only enabled extensions give MCP servers and instruction files", async () => {
    await using data = tempDir("k-ext-data-");
    await using src = tempDir("k-ext-src-");
    writeFileSync(join(src.path, "qwen-extension.json"), manifest("kit", { contextFileName: "KIT.md", mcpServers: { tools: { command: "/bin/echo", args: ["${extensionPath}"] } } }));
    writeFileSync(join(src.path, "KIT.md"), "kit rule\n");
    await installFromFolder(data.path, src.path);
    const path = join(data.path, "extensions", "kit");
    expect(extensionMcpServers(data.path)).toEqual([{ name: "kit__tools", transport: "stdio", command: "/bin/echo", args: [path], env: {}, cwd: path, description: "from extension kit", extensionName: "kit" }]);
    expect(extensionContextFiles(data.path)).toEqual([{ extension: "kit", path: join(path, "KIT.md"), text: "kit rule\n", bytes: 9, truncated: false }]);
    const ext = readExtension(data.path, "kit");
    if (!("record" in ext)) throw new Error("not installed");
    expect(await setEnabled(ext.path, ext.record, false)).toBe(true);
    expect(JSON.parse(readFileSync(join(path, RECORD_FILE), "utf8")).enabled).toBe(false);
    expect(extensionMcpServers(data.path)).toEqual([]);
    expect(extensionContextFiles(data.path)).toEqual([]);
  });

  test("refusals: remote sources but a scoped npm package, relative paths, a link, a folder holding the extensions folder", async () => {
    for (const source of ["acme/kit", "https://example.com/kit.git", "npm:kit", "git@github.com:acme/kit.git"]) expect(() => checkSource(source)).toThrow(expect.objectContaining({ status: 422 }));
    for (const source of ["@acme/kit", "@acme/kit@1.2.3", "@acme/kit@next"]) expect(() => checkSource(source)).not.toThrow();
    expect(() => checkSource("kit")).toThrow(expect.objectContaining({ status: 400 }));
    await using data = tempDir("k-ext-data-");
    await using src = tempDir("k-ext-src-");
    writeFileSync(join(src.path, "qwen-extension.json"), manifest("kit"));
    symlinkSync(src.path, join(data.path, "link"));
    await expect(installFromFolder(data.path, join(data.path, "link"))).rejects.toMatchObject({ status: 400, code: "invalid_extension_source" });
    writeFileSync(join(data.path, "qwen-extension.json"), manifest("self"));
    await expect(installFromFolder(data.path, data.path)).rejects.toMatchObject({ status: 400, message: expect.stringContaining("may not hold svc's extensions folder") });
    expect(existsSync(join(data.path, "extensions", "self"))).toBe(false);
  });

  test("a reinstall replaces the whole copy; a manifest naming another folder is not used", async () => {
    await using data = tempDir("k-ext-data-");
    await using src = tempDir("k-ext-src-");
    writeFileSync(join(src.path, "qwen-extension.json"), manifest("kit"));
    writeFileSync(join(src.path, "old.txt"), "old");
    await installFromFolder(data.path, src.path);
    writeFileSync(join(src.path, "new.txt"), "new");
    rmSync(join(src.path, "old.txt"));
    await installFromFolder(data.path, src.path);
    expect(existsSync(join(data.path, "extensions", "kit", "old.txt"))).toBe(false);
    expect(readFileSync(join(data.path, "extensions", "kit", "new.txt"), "utf8")).toBe("new");
    mkdirSync(join(data.path, "extensions", "other"));
    writeFileSync(join(data.path, "extensions", "other", "qwen-extension.json"), manifest("kit"));
    expect(readExtension(data.path, "other")).toMatchObject({ error: 'the manifest names "kit"' });
  });
});

describe("install leftovers", () => {
  test("an install sweeps the staging, replaced and download folders a dead install left, once older than an hour; younger ones may be another daemon's and stay", async () => {
    await using data = tempDir("svc-ext-left-");
    await using src = tempDir("svc-ext-left-src-");
    writeFileSync(join(src.path, "qwen-extension.json"), manifest("kit"));
    const old = (Date.now() - LEFTOVER_AGE_MS - 60_000) / 1000;
    const made = (path: string, age: "old" | "young") => {
      mkdirSync(join(path, "inner"), { recursive: true });
      writeFileSync(join(path, "inner", "f"), "x");
      if (age === "old") utimesSync(path, old, old);
      return path;
    };
    const ext = join(data.path, "extensions");
    const downloads = join(data.path, DOWNLOADS_FOLDER);
    const swept = [made(join(ext, ".staging-a"), "old"), made(join(ext, ".old-b"), "old"), made(join(downloads, "c"), "old")];
    const kept = [made(join(ext, ".staging-young"), "young"), made(join(downloads, "young"), "young"), made(join(ext, "other"), "old")];
    const service = new ExtensionService({ dataDir: data.path, workspace: src.path, registry: "http://127.0.0.1:9/", refresh: async () => null, publish: () => {} });
    const op = service.install(src.path);
    await until(() => service.operation(op.operationId).status !== "queued" && service.operation(op.operationId).status !== "running", 5000, "the install");
    expect(service.operation(op.operationId).status).toBe("succeeded");
    expect(swept.filter((p) => existsSync(p))).toEqual([]);
    expect(kept.filter((p) => !existsSync(p))).toEqual([]);
  });
});
