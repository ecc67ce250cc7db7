/**
 * The daemon's real app (every route, the real SessionManager and agent runtimes with the fake agent
 * as child) served on 127.0.0.1 port 0 without the front door, where a request may name the peer
 * address the routes see (header PEER_ADDRESS_HEADER). It stands in for a client on another host,
 * which a test on loopback cannot be, so rules that depend on where a request comes from (the
 * `local-only` vote policy) can be tested through their real route. Everything else is a normal
 * request from 127.0.0.1. Disposing ends the sessions, stops the agent children and checks they
 * are gone. Its responses are checked against the API contract (`contract.ts`) like a daemon's.
 *
 *   await using app = await startSessionApp({ settings: { policy: { permissionStrategy: "local-only" } } });
 *   await app.json("POST", "/session/…/permission/…", body, { [PEER_ADDRESS_HEADER]: "192.0.2.7" });
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/server/app.ts";
import { FAKE_AGENT_ENTRY } from "../fixtures/fake-agent-client.ts";
import { testAppDeps } from "./app-deps.ts";
import { underContract } from "./contract.ts";
import { testServerConfig } from "./daemon.ts";
import type { DaemonSettingsDoc } from "./fake-agent-daemon.ts";
import { jsonRequest, type JsonReply } from "./json-request.ts";
import { expectPidsGone } from "./pids.ts";
import { tempDir } from "./temp-dir.ts";

/** The peer address the routes see for this request (default: the socket's, 127.0.0.1). */
export const PEER_ADDRESS_HEADER = "x-test-peer-address";

export interface SessionApp extends AsyncDisposable {
  readonly url: string;
  json<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonReply<T>>;
}

export async function startSessionApp(options: { args?: string[]; settings?: DaemonSettingsDoc } = {}): Promise<SessionApp> {
  const dir = tempDir("svc-app-");
  const home = process.env.SVC_HOME!;
  const settingsFile = join(home, "settings.json");
  if (options.settings) {
    mkdirSync(home, { recursive: true });
    writeFileSync(settingsFile, JSON.stringify(options.settings));
  }
  let resolved: ReturnType<typeof testServerConfig>;
  try {
    resolved = testServerConfig(dir.path, options.args ?? [], { SVC_CLI_ENTRY: FAKE_AGENT_ENTRY });
  } finally {
    if (options.settings) rmSync(settingsFile, { force: true });
  }
  const { config, logger } = resolved;
  let server: ReturnType<typeof Bun.serve> | null = null;
  const deps = testAppDeps(config, logger, (request) => request.headers.get(PEER_ADDRESS_HEADER) ?? server?.requestIP(request)?.address ?? null);
  const { sessions, runtimes } = deps;
  const app = createApp(deps);
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, reusePort: false, development: false, fetch: app.fetch });
  const url = `http://127.0.0.1:${server.port}`;
  const offContract = underContract(url);
  return {
    url,
    json: (method, path, body, headers) => jsonRequest(url, method, path, body, headers),
    async [Symbol.asyncDispose]() {
      const pids = runtimes.all().map((r) => r.pid).filter((pid): pid is number => pid !== null);
      sessions.shutdown();
      await runtimes.stop();
      await server!.stop(true);
      offContract();
      try {
        await expectPidsGone(pids);
      } finally {
        await dir[Symbol.asyncDispose]();
      }
    },
  };
}
