/**
 * `/daemon/update*` over HTTP (its shapes checked against the OpenAPI document by the test fetch):
 * token-gated, the GET included; a release location that cannot be reached is reported as such
 * (never as up to date) and nothing gets staged; a restart with nothing staged is refused. The
 * update itself (signed releases, the binary swap, the handover and the rollback):
 * test/e2e/update.test.ts and update-handover.test.ts. Here: a daemon started by a restart proves it
 * (its nonce, on a `/health` that asks), and prepare's body is checked.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { HANDOVER_NONCE_ENV, HANDOVER_NONCE_HEADER, HANDOVER_REQUEST_HEADER } from "../../src/config/update-handover.ts";
import { startDaemon } from "../helpers/daemon.ts";
import { tempDir } from "../helpers/temp-dir.ts";

const TOKEN = "update-token-81c4";
const AUTH = { Authorization: `Bearer ${TOKEN}` };

/** A loopback address where nothing listens: a port taken from a server stopped at once. */
function closedUrl(): string {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const url = `http://127.0.0.1:${server.port}`;
  server.stop(true);
  return url;
}

describe("/daemon/update", () => {
  test("every route needs a configured token (token_required), the GET too", async () => {
    await using d = await startDaemon([], { env: { SVC_RELEASE_URL: closedUrl() } });
    for (const [method, path] of [["GET", "/daemon/update"], ["POST", "/daemon/update/prepare"], ["POST", "/daemon/update/restart"]] as const) {
      const res = await d.fetch(path, { method });
      expect(res.status).toBe(401);
      expect((await res.json()).code).toBe("token_required");
    }
  });

  test("an unreachable release location is reported as unknown, not up to date; prepare fails and stages nothing; restart has nothing to apply", async () => {
    await using home = tempDir("svc-home-");
    const url = closedUrl();
    await using d = await startDaemon(["--token", TOKEN], { env: { SVC_HOME: home.path, SVC_RELEASE_URL: `${url}/` } });
    const res = await d.fetch("/daemon/update", { headers: AUTH });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ releaseUrl: url, latestVersion: null, updateAvailable: null, staged: null, lastRestart: null });
    expect(body.checkError.code).toBe("release_unreachable");
    expect(body.checkError.error).toContain(`${url}/latest/download/SHA256SUMS`);
    expect(typeof body.currentVersion).toBe("string");

    const prepare = await d.fetch("/daemon/update/prepare", { method: "POST", headers: AUTH });
    expect(prepare.status).toBe(502);
    expect((await prepare.json()).code).toBe("release_unreachable");
    expect(existsSync(join(home.path, "update", "staged"))).toBe(false);

    const restart = await d.fetch("/daemon/update/restart", { method: "POST", headers: AUTH });
    expect(restart.status).toBe(409);
    expect((await restart.json()).code).toBe("update_not_staged");
  });

  test("--release-url wins over SVC_RELEASE_URL", async () => {
    await using d = await startDaemon(["--token", TOKEN, "--release-url", "http://127.0.0.1:9/from-flag"], { env: { SVC_RELEASE_URL: "http://127.0.0.1:9/from-env" } });
    const body = await (await d.fetch("/daemon/update", { headers: AUTH })).json();
    expect(body.releaseUrl).toBe("http://127.0.0.1:9/from-flag");
  });

  test("a daemon started with a handover nonce echoes it on a /health that asks, --require-auth too; others do not", async () => {
    const ask = { [HANDOVER_REQUEST_HEADER]: "1" };
    await using started = await startDaemon(["--token", TOKEN, "--require-auth"], { env: { [HANDOVER_NONCE_ENV]: "nonce-f1-7c2" } });
    const asked = await started.fetch("/health", { headers: ask });
    expect(asked.status).toBe(401);
    expect(asked.headers.get(HANDOVER_NONCE_HEADER)).toBe("nonce-f1-7c2");
    await asked.body?.cancel();
    const plain = await started.fetch("/health", { headers: AUTH });
    expect(plain.status).toBe(200);
    expect(plain.headers.get(HANDOVER_NONCE_HEADER)).toBeNull();
    await plain.body?.cancel();
    await using other = await startDaemon([], { env: { [HANDOVER_NONCE_ENV]: undefined } });
    const none = await other.fetch("/health", { headers: ask });
    expect(none.status).toBe(200);
    expect(none.headers.get(HANDOVER_NONCE_HEADER)).toBeNull();
    await none.body?.cancel();
  });

  test("prepare's body: allowDowngrade is a boolean", async () => {
    await using d = await startDaemon(["--token", TOKEN], { env: { SVC_RELEASE_URL: closedUrl() } });
    const res = await d.fetch("/daemon/update/prepare", { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ allowDowngrade: "yes" }) });
    expect(res.status).toBe(400);
    await res.body?.cancel();
    const ok = await d.fetch("/daemon/update/prepare", { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: JSON.stringify({ allowDowngrade: false }) });
    expect((await ok.json()).code).toBe("release_unreachable");
  });
});
