/**
 * `svc trust <dir>` trusts a folder (and everything below it), `svc trust --revoke <dir>` takes its
 * trust back, `svc trust --list` prints the decisions. They are written to the trust store
 * (`src/trust/`), which running daemons read again when it changes. Exit codes: 0 done; 1 the
 * trust store cannot be read or written (damaged, unwritable, full), with the reason on stderr;
 * 2 bad arguments (or a folder to trust that is not a directory, or host settings that cannot be
 * used), one line on stderr.
 */
import { BootError } from "./config/boot-error.ts";
import { resolveTrustConfig, TRUST_USAGE, type TrustConfig } from "./config/trust-config.ts";
import { canonicalFolder } from "./config/canonical-folder.ts";
import { changedRules, decideTrust, readTrustStore, TrustStoreError, updateTrustStore, type TrustRule } from "./trust/index.ts";

const fail = (message: string, code: number): never => {
  process.stderr.write(`svc trust: ${message}\n`);
  process.exit(code);
};

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}

export function trustCommand(args: readonly string[]): void {
  let config: TrustConfig;
  try {
    config = resolveTrustConfig({ args, env: process.env, cwd: process.cwd() });
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    return fail(err.message, 2);
  }
  const { command, folderTrust } = config;
  if (command.kind === "help") return void process.stdout.write(TRUST_USAGE);
  if (!folderTrust.enabled) process.stderr.write(`svc trust: folder trust is off (security.folderTrust.enabled is false in ${config.settingsFile}): every folder is trusted whatever is decided here\n`);
  const settingsFolders = folderTrust.trustedFolders.map((f) => canonicalFolder(f));
  if (command.kind === "list") {
    const store = readTrustStore(config.dataDir);
    if (!store.ok) return fail(store.problem, 1);
    const rows = [
      ...store.rules.map((r) => [r.level === "TRUST_FOLDER" ? "trusted" : "untrusted", "svc trust", r.path]),
      ...settingsFolders.map((path) => ["trusted", "settings", path]),
    ];
    if (rows.length > 0) process.stdout.write(table([["STATE", "SOURCE", "FOLDER"], ...rows]));
    return;
  }
  const desired = command.kind === "trust" ? "trusted" : "untrusted";
  let rules: readonly TrustRule[];
  try {
    rules = updateTrustStore(config.dataDir, (current) => changedRules(current, command.folder, desired));
  } catch (err) {
    if (!(err instanceof TrustStoreError)) throw err;
    return fail(err.message, 1);
  }
  if (desired === "trusted") return void process.stdout.write(`trusted ${command.folder}\n`);
  const above = decideTrust({ workspace: command.folder, folderTrustEnabled: true, flagGrant: false, stored: rules.filter((r) => r.path !== command.folder), settingsFolders });
  process.stdout.write(`untrusted ${command.folder}${above.trusted ? " (a do-not-trust entry overrides the trusted folder above it)" : ""}\n`);
}
