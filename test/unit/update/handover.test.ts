/** The pure parts of a restart into an update: the new daemon's arguments, the service manager detection, version order, the config's handover fields. */
import { describe, expect, test } from "bun:test";
import { HANDOVER_NONCE_ENV, relaunchArgs, serviceManager } from "../../../src/config/update-handover.ts";
import { compareVersions } from "../../../src/update/version-order.ts";
import { configFixture } from "../../helpers/config.ts";

describe("relaunchArgs", () => {
  test("pins the bound port in place of any given, and drops --open", () => {
    expect(relaunchArgs(["--port", "0", "--open", "--workspace", "/w", "--port=7"], 4170)).toEqual(["serve", "--workspace", "/w", "--port", "4170"]);
  });
  test("a second restart gives the same arguments (they do not grow)", () => {
    const once = relaunchArgs(["--workspace", "/w"], 5000);
    expect(relaunchArgs(once.slice(1), 5000)).toEqual(once);
  });
});

describe("serviceManager", () => {
  test("systemd by INVOCATION_ID or NOTIFY_SOCKET, launchd by a service's XPC_SERVICE_NAME, else none", () => {
    expect(serviceManager({ INVOCATION_ID: "0123abcd" })).toBe("systemd");
    expect(serviceManager({ NOTIFY_SOCKET: "/run/systemd/notify" })).toBe("systemd");
    expect(serviceManager({ XPC_SERVICE_NAME: "dev.svc.daemon" })).toBe("launchd");
    expect(serviceManager({ XPC_SERVICE_NAME: "0" })).toBeNull();
    expect(serviceManager({ XPC_SERVICE_NAME: "application.com.apple.Terminal.1234" })).toBeNull();
    expect(serviceManager({ HOME: "/home/u" })).toBeNull();
  });
});

describe("compareVersions", () => {
  test("semver precedence, pre-releases included", () => {
    const ordered = ["0.9.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0"];
    for (let i = 0; i + 1 < ordered.length; i++) {
      expect(compareVersions(ordered[i]!, ordered[i + 1]!)).toBe(-1);
      expect(compareVersions(ordered[i + 1]!, ordered[i]!)).toBe(1);
    }
    expect(compareVersions("1.0.0+build.5", "1.0.0")).toBe(0);
    expect(compareVersions("v1.2.3", "1.2.3")).toBe(0);
  });
  test("a version that is not semver ranks after every semver one", () => {
    expect(compareVersions("nightly", "9.9.9")).toBe(1);
    expect(compareVersions("9.9.9", "nightly")).toBe(-1);
  });
});

describe("the handover in the config", () => {
  test("the nonce is read from the environment and never passed on to children; the service manager is detected", async () => {
    await using fx = configFixture();
    const config = fx.resolve([], { [HANDOVER_NONCE_ENV]: "n0nce", INVOCATION_ID: "abc" });
    expect(config.launcher.handoverNonce).toBe("n0nce");
    expect(config.launcher.serviceManager).toBe("systemd");
    expect(config.agent.baseEnv[HANDOVER_NONCE_ENV]).toBeUndefined();
    expect(config.agent.baseEnv.INVOCATION_ID).toBe("abc");
    expect(fx.resolve([]).launcher).toMatchObject({ handoverNonce: null, serviceManager: null });
  });
});
