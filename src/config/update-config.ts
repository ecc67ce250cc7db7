/** `svc update` arguments: `[--apply [--allow-downgrade]] [--release-url <url>]`, the location also from SVC_RELEASE_URL. */
import { parseArgs } from "node:util";
import { BootError } from "./boot-error.ts";

export const UPDATE_USAGE = `usage: svc update [--apply [--allow-downgrade]] [--release-url <url>]

Checks the release location for a newer svc (its SHA256SUMS signed with the release key built into
this binary). With --apply, downloads this platform's archive, checks it against the signed sums,
and replaces this binary (${"`svc --version`"} names the new one). A running daemon keeps its version until
it restarts (POST /daemon/update/restart updates and restarts a daemon in place). A release older
than this build is not installed without --allow-downgrade; svc run from source (not a compiled
binary) does not install over the runtime running it.

options:
  --apply               install the newest release over this binary
  --allow-downgrade     with --apply: install it even when it is older than this build
  --release-url <url>   release location (env SVC_RELEASE_URL; default: the project's, as install.sh)
  -h, --help            show this help

Exits 0 when up to date or updated, 1 when the location cannot be reached or verified, 2 on bad arguments.
`;

export interface UpdateConfig {
  readonly help: boolean;
  readonly apply: boolean;
  readonly allowDowngrade: boolean;
  readonly releaseUrl: string | null;
  /** Running as a compiled svc binary (the one `--apply` replaces); from source the runtime would be replaced. */
  readonly compiled: boolean;
}

export function resolveUpdateConfig(inputs: { args: readonly string[]; env: Readonly<Record<string, string | undefined>>; selfEntry?: string }): UpdateConfig {
  let values: { help?: boolean; apply?: boolean; "allow-downgrade"?: boolean; "release-url"?: string };
  try {
    values = parseArgs({
      args: [...inputs.args],
      options: { help: { type: "boolean", short: "h" }, apply: { type: "boolean" }, "allow-downgrade": { type: "boolean" }, "release-url": { type: "string" } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new BootError((err as Error).message.replace(/\. To specify.*$/s, "").split("\n")[0]!);
  }
  const releaseUrl = values["release-url"] ?? (inputs.env.SVC_RELEASE_URL || null);
  if (releaseUrl !== null && !/^https?:\/\/[^\s]+$/.test(releaseUrl)) throw new BootError(`--release-url: ${JSON.stringify(releaseUrl)} is not an http(s) address`);
  if (values["allow-downgrade"] === true && values.apply !== true) throw new BootError("--allow-downgrade goes with --apply");
  const entry = inputs.selfEntry ?? "";
  const compiled = entry.startsWith("/$bunfs/") || /^[A-Z]:\\~BUN\\/.test(entry);
  return { help: values.help === true, apply: values.apply === true, allowDowngrade: values["allow-downgrade"] === true, releaseUrl, compiled };
}
