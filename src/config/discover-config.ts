/**
 * Inputs of `svc discover [--workspace <dir>]`: the data dir (as `svc serve` resolves it, from
 * `SVC_HOME` or the platform default) and the canonical workspace (default: the current directory).
 * Bad arguments are a BootError naming them.
 */
import { parseArgs } from "node:util";
import { BootError } from "./boot-error.ts";
import { canonicalWorkspace, dataDirFor } from "./config.ts";
import { helpRequested } from "./flags.ts";

export const DISCOVER_USAGE = "usage: svc discover [--workspace <dir>]\n\nprints the discovery record of the live daemon serving the workspace (default: the current directory) as one JSON line; exits 1 when there is none\n";

const OPTIONS = { workspace: { type: "string" } } as const;

/** Whether `svc discover …args` asks for help (`--help`/`-h` as a flag, not as the value of `--workspace`). */
export const discoverHelpRequested = (args: readonly string[]) => helpRequested(args, OPTIONS);

export interface DiscoverConfig {
  readonly dataDir: string;
  readonly workspace: string;
}

export function resolveDiscoverConfig(inputs: {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly platform?: NodeJS.Platform;
}): DiscoverConfig {
  let workspace: string | undefined;
  try {
    workspace = parseArgs({ args: [...inputs.args], options: OPTIONS, strict: true, allowPositionals: false }).values.workspace;
  } catch (err) {
    throw new BootError((err as Error).message.replace(/\. To specify.*$/s, "").split("\n")[0]!);
  }
  return { dataDir: dataDirFor(inputs.env, inputs.platform ?? process.platform), workspace: canonicalWorkspace(workspace ?? null, inputs.cwd) };
}
