/**
 * Regenerates the README's screenshots of the web UI: runs the walkthrough (walkthrough.test.ts,
 * which saves one screenshot per step) and copies the README's steps to `docs/screenshots/`.
 * Run: `./node_modules/.bin/bun test/browser/screenshots.ts` (needs Debian's chromium).
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/daemon.ts";
import { ARTIFACTS } from "./harness.ts";

/** Walkthrough step → the README's file name. */
export const README_SHOTS: Record<string, string> = {
  "walkthrough-05-approved": "chat",
  "walkthrough-04-permission": "permission",
  "walkthrough-12-dark": "dark",
  "walkthrough-08-workspace": "workspace",
  "walkthrough-13-phone": "phone",
};

const run = Bun.spawnSync([process.execPath, "test", "--timeout", "30000", join(REPO_ROOT, "test", "browser", "walkthrough.test.ts")], { cwd: REPO_ROOT, stdout: "inherit", stderr: "inherit" });
if (run.exitCode !== 0) throw new Error(`the walkthrough failed (exit ${run.exitCode}); no screenshot was copied`);
const out = join(REPO_ROOT, "docs", "screenshots");
mkdirSync(out, { recursive: true });
for (const [step, name] of Object.entries(README_SHOTS)) {
  const from = join(ARTIFACTS, `${step}.png`);
  if (!existsSync(from)) throw new Error(`the walkthrough left no ${from}`);
  copyFileSync(from, join(out, `${name}.png`));
  console.log(`docs/screenshots/${name}.png`);
}
