/**
 * The client SDK's workspace configuration calls (the settings area's) against a fake-agent
 * daemon with a token on a trusted workspace: memory listed and written (both files change on
 * disk), hooks read, the language set, and the skill toggle a generic agent refuses with 501.
 * Every response goes through the contract check.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, DaemonApiError } from "../../src/client/index.ts";
import { contractFetch } from "../helpers/contract.ts";
import { fakeAgentDaemon } from "../helpers/fake-agent-daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "u-settings-client-token-0123456789";

test("memory, hooks, language and the skill toggle through the client", async () => {
  await using ws = tempDir("u-settings-ws-");
  writeFileSync(join(ws.path, "AGENTS.md"), "# Rules\n");
  await using d = await fakeAgentDaemon(["--trust-workspace"], { workspace: ws.path, env: { SVC_SERVER_TOKEN: TOKEN } });
  const client = createClient({ baseUrl: d.url, token: TOKEN, fetch: contractFetch });

  const listed = await client.memory();
  expect(listed.files).toEqual([{ kind: "memory_file", path: join(ws.path, "AGENTS.md"), scope: "workspace", bytes: 8 }]);
  const written = await client.writeMemory({ scope: "workspace", mode: "replace", content: "# Rules\nBe brief.\n" });
  expect(written).toMatchObject({ ok: true, filePath: join(ws.path, "AGENTS.md"), mode: "replace", changed: true });
  expect(readFileSync(join(ws.path, "AGENTS.md"), "utf8")).toBe("# Rules\nBe brief.\n");
  const added = await client.writeMemory({ scope: "global", content: "Prefer small commits." });
  expect(readFileSync(added.filePath, "utf8")).toContain("Prefer small commits.");
  expect((await client.memory()).files.map((f) => f.scope)).toEqual(["global", "workspace"]);

  expect(await client.workspaceHooks()).toMatchObject({ v: 1, workspaceCwd: ws.path, hooks: [] });
  expect(await client.setLanguage("de")).toEqual({ language: "de", outputLanguage: "German", refresh: { runtimes: 0, sessions: 0, failed: 0 } });

  await client.createSession();
  const refused = await client.toggleSkill("docs", false).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(DaemonApiError);
  expect((refused as DaemonApiError).status).toBe(501);
});
