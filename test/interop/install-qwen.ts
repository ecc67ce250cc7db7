/**
 * Installs the reference agent (`@qwen-code/qwen-code@0.24.4`) into `.interop/` at the repo root
 * (gitignored), once; the interop test runs its `cli.js --acp` as the daemon's agent child.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export const QWEN_VERSION = "0.24.4";
export const INTEROP_DIR = join(import.meta.dir, "..", "..", ".interop");
export const QWEN_CLI = join(INTEROP_DIR, "node_modules", "@qwen-code", "qwen-code", "cli.js");

if (import.meta.main) {
  if (existsSync(QWEN_CLI)) {
    console.log(`qwen-code already installed in ${INTEROP_DIR}`);
  } else {
    mkdirSync(INTEROP_DIR, { recursive: true });
    const proc = Bun.spawn(["npm", "install", "--prefix", INTEROP_DIR, "--no-save", "--no-audit", "--no-fund", `@qwen-code/qwen-code@${QWEN_VERSION}`], {
      stdout: "inherit",
      stderr: "inherit",
    });
    if ((await proc.exited) !== 0 || !existsSync(QWEN_CLI)) {
      console.error("failed to install @qwen-code/qwen-code");
      process.exit(1);
    }
  }
}
