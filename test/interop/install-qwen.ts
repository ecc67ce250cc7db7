/**
 * Where the reference agent (`@qwen-code/qwen-code`, pinned in src/config/agent-catalog.ts) lies in
 * the `.interop/` cache at the repo root (gitignored); `install-agents.ts` installs it there.
 */
import { join } from "node:path";

export const INTEROP_DIR = join(import.meta.dir, "..", "..", ".interop");
export const QWEN_CLI = join(INTEROP_DIR, "node_modules", "@qwen-code", "qwen-code", "cli.js");
