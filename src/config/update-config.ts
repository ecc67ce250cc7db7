/** `svc update` arguments: `[--apply] [--release-url <url>]`, the location also from SVC_RELEASE_URL. */
import { parseArgs } from "node:util";
import { BootError } from "./boot-error.ts";

export const UPDATE_USAGE = `usage: svc update [--apply] [--release-url <url>]

Checks the release location for a newer svc (its SHA256SUMS signed with the release key built into
this binary). With --apply, downloads this platform's archive, checks it against the signed sums,
and replaces this binary (${"`svc --version`"} names the new one). A running daemon keeps its version until
it restarts (POST /daemon/update/restart updates and restarts a daemon in place).

options:
  --apply               install the newest release over this binary
  --release-url <url>   release location (env SVC_RELEASE_URL; default: the project's, as install.sh)
  -h, --help            show this help

Exits 0 when up to date or updated, 1 when the location cannot be reached or verified, 2 on bad arguments.
`;

export interface UpdateConfig {
  readonly help: boolean;
  readonly apply: boolean;
  readonly releaseUrl: string | null;
}

export function resolveUpdateConfig(inputs: { args: readonly string[]; env: Readonly<Record<string, string | undefined>> }): UpdateConfig {
  let values: { help?: boolean; apply?: boolean; "release-url"?: string };
  try {
    values = parseArgs({
      args: [...inputs.args],
      options: { help: { type: "boolean", short: "h" }, apply: { type: "boolean" }, "release-url": { type: "string" } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new BootError((err as Error).message.replace(/\. To specify.*$/s, "").split("\n")[0]!);
  }
  const releaseUrl = values["release-url"] ?? (inputs.env.SVC_RELEASE_URL || null);
  if (releaseUrl !== null && !/^https?:\/\/[^\s]+$/.test(releaseUrl)) throw new BootError(`--release-url: ${JSON.stringify(releaseUrl)} is not an http(s) address`);
  return { help: values.help === true, apply: values.apply === true, releaseUrl };
}
