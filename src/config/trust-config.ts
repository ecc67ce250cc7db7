/**
 * Inputs of `svc trust <dir> | --revoke <dir> | --list`: the command, the data dir (as `svc serve`
 * resolves it) and the host settings' `security.folderTrust`. Bad arguments, a folder to trust that
 * is not a directory, or host settings that cannot be used are a BootError.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BootError } from "./boot-error.ts";
import { canonicalFolder } from "./canonical-folder.ts";
import { dataDirFor } from "./config.ts";
import { loadFolderTrust, type FolderTrustSettings } from "./settings.ts";

export const TRUST_USAGE = `usage:
  svc trust <dir>             trust a folder and everything below it
  svc trust --revoke <dir>    take a folder's trust back
  svc trust --list            list the trust decisions (and the host settings' trusted folders)

Decisions are saved in <data dir>/trust.json and count at once for running daemons. A folder is
untrusted until it is trusted: the built-in agent then asks before every change whatever the
folder's .svc/settings.json says, and the daemon refuses its file writes and settings controls.
`;

export type TrustCommand =
  | { readonly kind: "help" }
  | { readonly kind: "list" }
  | { readonly kind: "trust"; readonly folder: string }
  | { readonly kind: "revoke"; readonly folder: string };

export interface TrustConfig {
  readonly command: TrustCommand;
  readonly dataDir: string;
  readonly settingsFile: string;
  readonly folderTrust: FolderTrustSettings;
}

const OPTIONS = { list: { type: "boolean" }, revoke: { type: "string" }, help: { type: "boolean", short: "h" } } as const;

function directory(folder: string, cwd: string): string {
  const canonical = canonicalFolder(folder, cwd);
  let isDir = false;
  try {
    isDir = statSync(canonical).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new BootError(`${canonical} is not a directory`);
  return canonical;
}

export function resolveTrustConfig(inputs: {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly platform?: NodeJS.Platform;
}): TrustConfig {
  let parsed;
  try {
    parsed = parseArgs({ args: [...inputs.args], options: OPTIONS, strict: true, allowPositionals: true });
  } catch (err) {
    throw new BootError((err as Error).message.replace(/\. To specify.*$/s, "").split("\n")[0]!);
  }
  const { values, positionals } = parsed;
  let command: TrustCommand;
  const uses = [values.list === true, values.revoke !== undefined, positionals.length > 0].filter(Boolean).length;
  if (values.help) command = { kind: "help" };
  else if (uses === 0) throw new BootError("needs a folder (svc trust . for the current one), --revoke <dir> or --list");
  else if (uses > 1 || positionals.length > 1) throw new BootError("takes one of: a folder, --revoke <dir>, --list");
  else if (values.list) command = { kind: "list" };
  else if (values.revoke !== undefined) {
    if (values.revoke.trim() === "") throw new BootError("--revoke needs a folder");
    command = { kind: "revoke", folder: canonicalFolder(values.revoke, inputs.cwd) };
  } else command = { kind: "trust", folder: directory(positionals[0]!, inputs.cwd) };
  const dataDir = dataDirFor(inputs.env, inputs.platform ?? process.platform);
  const settingsFile = join(dataDir, "settings.json");
  return { command, dataDir, settingsFile, folderTrust: loadFolderTrust(settingsFile) };
}
