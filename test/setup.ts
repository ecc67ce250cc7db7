/**
 * Test preload: every test process gets its own HOME / XDG / SVC_HOME under a temp dir, and no
 * provider API keys or daemon token from the developer's environment leak in.
 */
import { afterAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = mkdtempSync(join(tmpdir(), "svc-test-"));
for (const [name, dir] of [
  ["HOME", "home"],
  ["XDG_CONFIG_HOME", "xdg/config"],
  ["XDG_DATA_HOME", "xdg/data"],
  ["XDG_CACHE_HOME", "xdg/cache"],
  ["XDG_STATE_HOME", "xdg/state"],
  ["SVC_HOME", "svc-home"],
] as const) {
  const path = join(root, dir);
  mkdirSync(path, { recursive: true });
  process.env[name] = path;
}
for (const name of Object.keys(process.env))
  if (/(_API_KEY|_TOKEN|_SECRET)$/.test(name) || name.startsWith("SVC_SERVE_") || name === "SVC_CLI_ENTRY" || name === "SVC_CLI_ARGS")
    if (name !== "SVC_HOME") delete process.env[name];

afterAll(() => rmSync(root, { recursive: true, force: true }));
