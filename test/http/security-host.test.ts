/**
 * The Host allowlist on loopback binds (DNS-rebinding defence, notes §8.1): only the daemon's own
 * names with its port are accepted; everything else is 403 `Invalid Host header`, /health included.
 */
import { describe, expect, test } from "bun:test";
import { startDaemon } from "../helpers/daemon.ts";
import { startFrontDoor } from "../helpers/front-door.ts";
import { expectInvalidHost, expectUnauthorized } from "../helpers/http-expect.ts";
import { rawExchange, rawRequest } from "../helpers/raw-http.ts";
import { until } from "../helpers/until.ts";

const TOKEN = "host-test-token";

describe("on a loopback bind", () => {
  const allowed = (port: number) => [`localhost:${port}`, `LocalHost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `host.docker.internal:${port}`];
  const refused = (port: number) => [
    "127.0.0.1",
    "localhost",
    `127.0.0.1:${port + 1}`,
    `127.0.0.2:${port}`,
    `foo.localhost:${port}`,
    `evil.example:${port}`,
    `::1:${port}`,
    `[::1]`,
    `127.0.0.1:${port}.evil.example`,
    `127.0.0.1:0${port}`,
    `user@127.0.0.1:${port}`,
    `0.0.0.0:${port}`,
    `2130706433:${port}`,
  ];

  test("accepts the loopback and container-host aliases with the daemon's port", async () => {
    await using d = await startDaemon();
    for (const host of allowed(d.port)) {
      const res = await d.fetch("/health", { headers: { Host: host } });
      expect([host, res.status]).toEqual([host, 200]);
    }
  });

  test.each(["/health", "/capabilities", "/nope"])("refuses every other Host with 403 on %s", async (path) => {
    await using d = await startDaemon();
    for (const host of refused(d.port)) {
      const res = await d.fetch(path, { headers: { Host: host } });
      expect([host, res.status]).toEqual([host, 403]);
      await expectInvalidHost(res);
    }
  });

  test("refuses an empty Host", async () => {
    await using d = await startDaemon();
    const res = await rawRequest(d.port, { path: "/health", headers: [["Host", ""]] });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toEqual({ error: "Invalid Host header" });
  });

  test("refuses a request with no Host at all", async () => {
    await using d = await startDaemon();
    // HTTP/1.0 may omit Host, so the request reaches the daemon's own check.
    const { response } = await rawExchange(d.port, "GET /health HTTP/1.0\r\n\r\n");
    expect(response?.status).toBe(403);
    expect(JSON.parse(response!.text)).toEqual({ error: "Invalid Host header" });
    // HTTP/1.1 requires Host: Bun's parser refuses it before the daemon sees it.
    expect((await rawExchange(d.port, "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n")).response?.status).toBe(400);
  });

  test("the Host check applies even with a valid token, and before the bearer check", async () => {
    await using d = await startDaemon(["--token", TOKEN]);
    await expectInvalidHost(await d.fetch("/capabilities", { headers: { Host: "evil.example", Authorization: `Bearer ${TOKEN}` } }));
    await expectInvalidHost(await d.fetch("/capabilities", { headers: { Host: "evil.example" } }));
    await expectInvalidHost(await d.fetch("/health", { headers: { Host: "evil.example" } }));
  });

  test("the bound host name is accepted with the port", async () => {
    await using d = await startDaemon(["--hostname", "localhost"]);
    expect((await d.fetch("/health", { headers: { Host: `localhost:${d.port}` } })).status).toBe(200);
    await expectInvalidHost(await d.fetch("/health", { headers: { Host: `127.0.0.2:${d.port}` } }));
  });
});

describe("on a non-loopback bind", () => {
  test.each(["", "a/b", "a?b", "a#b", "user@daemon.lan.example"])(
    "a Host that cannot form a URL (%j) is 400, so the chain and the router never judge different paths",
    async (host) => {
      await using fd = await startFrontDoor(["--hostname", "0.0.0.0", "--token", TOKEN, "--rate-limit", "--rate-limit-read", "1"]);
      for (let i = 0; i < 3; i++) {
        const res = await rawRequest(fd.port, { path: "/health", headers: [["Host", host], ["Authorization", `Bearer ${TOKEN}`]] });
        expect(res.status).toBe(400);
        expect(JSON.parse(res.text)).toEqual({ error: "Invalid Host header" });
      }
      // The access log names the target actually sent.
      await until(() => fd.logs.some((l) => / GET \/health 400 /.test(l)), 2000, "the access line");
    },
  );


  test("there is no Host gate; the bearer covers every route", async () => {
    await using fd = await startFrontDoor(["--hostname", "0.0.0.0", "--token", TOKEN]);
    const res = await fd.fetch("/test/ok", { headers: { Host: "daemon.lan.example", Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    await expectUnauthorized(await fd.fetch("/test/ok", { headers: { Host: "daemon.lan.example" } }));
  });
});
