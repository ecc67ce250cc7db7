/**
 * Config fixture for unit tests: `resolveConfig` over a fresh temp workspace and a fresh `SVC_HOME`,
 * with an explicit environment (never the test process's own).
 *
 *   await using fx = configFixture();
 *   const config = fx.resolve(["--port", "0"], { SVC_SERVER_TOKEN: "t" });
 *   const err = fx.bootError(["--port", "x"]);
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BootError } from "../../src/config/boot-error.ts";
import { resolveConfig, type Config } from "../../src/config/config.ts";
import { tempDir } from "./temp-dir.ts";

export type Env = Record<string, string | undefined>;

export interface ConfigFixture extends AsyncDisposable {
  /** The temp workspace (canonical); it is also the cwd, so it is the default `--workspace`. */
  readonly workspace: string;
  /** The temp `SVC_HOME` (its `settings.json` is what `writeSettings` writes). */
  readonly home: string;
  resolve(args?: readonly string[], env?: Env): Config;
  /** Runs `resolve` and returns the BootError it throws (fails the test if it does not throw one). */
  bootError(args?: readonly string[], env?: Env): BootError;
  /** Writes `$SVC_HOME/settings.json` (an object is JSON-encoded, a string written verbatim). */
  writeSettings(doc: unknown): void;
}

export function configFixture(): ConfigFixture {
  const dir = tempDir("svc-config-");
  const workspace = join(dir.path, "ws");
  const home = join(dir.path, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  const resolve = (args: readonly string[] = [], env: Env = {}) =>
    resolveConfig({
      args,
      env: { SVC_HOME: home, ...env },
      cwd: workspace,
      version: "9.9.9-test",
      selfEntry: "/opt/svc/main.ts",
    });
  return {
    workspace,
    home,
    resolve,
    bootError(args = [], env = {}) {
      try {
        resolve(args, env);
      } catch (err) {
        if (err instanceof BootError) return err;
        throw new Error(`expected a BootError, got ${String(err)}`);
      }
      throw new Error(`expected a BootError for ${JSON.stringify(args)} ${JSON.stringify(env)}, but the config resolved`);
    },
    writeSettings(doc) {
      writeFileSync(join(home, "settings.json"), typeof doc === "string" ? doc : JSON.stringify(doc));
    },
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}
