/**
 * The launchd agent `svc service install` writes on macOS, and reading back what it runs.
 *
 * Loaded at login (`RunAtLoad`), started again when it exits with a failure (`KeepAlive` /
 * `SuccessfulExit` false: a clean stop stays stopped), at most every 10 s (`ThrottleInterval`);
 * stdout and stderr appended to `<data dir>/logs/service.log`; files private by default (`Umask`
 * 0077); 10 s to stop after SIGTERM (`ExitTimeOut`). Values are XML-escaped; a control character,
 * which XML 1.0 cannot carry, is refused before anything is written.
 */
import { LAUNCHD_LABEL } from "../config/service-config.ts";
import { serveCommandLine, type UnitSpec } from "./systemd-unit.ts";

const XML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

export class PlistValueError extends Error {}

function xml(value: string): string {
  if (/[\x00-\x1f\x7f]/.test(value)) throw new PlistValueError(`a control character cannot be written into a launchd plist: ${JSON.stringify(value)}`);
  return value.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

/** The agent's log file under the data dir. */
export const logFileOf = (dataDir: string) => `${dataDir}/logs/service.log`;

/** The comment line of the plist svc writes: install overwrites and uninstall removes no plist without it. */
export const PLIST_HEADER = "<!-- Written by svc service install (svc ";

export function plistText(spec: UnitSpec): string {
  const strings = (values: readonly string[]) => values.map((v) => `    <string>${xml(v)}</string>`).join("\n");
  const log = xml(logFileOf(spec.dataDir));
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
${PLIST_HEADER}${xml(spec.version)}); svc service uninstall removes it. The token is in the token file, never here. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${strings(serveCommandLine(spec))}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>SVC_HOME</key>
    <string>${xml(spec.dataDir)}</string>
    <key>PATH</key>
    <string>${xml(spec.path)}</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>10</integer>
  <key>ExitTimeOut</key>
  <integer>10</integer>
  <key>Umask</key>
  <integer>63</integer>
  <key>StandardOutPath</key>
  <string>${log}</string>
  <key>StandardErrorPath</key>
  <string>${log}</string>
</dict>
</plist>
`;
}

const unxml = (value: string) => value.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[name]!);

/** What an installed plist runs: its ProgramArguments and EnvironmentVariables (the shape plistText writes). */
export function readPlist(text: string): { exec: string[]; env: Record<string, string> } {
  const args = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text)?.[1] ?? "";
  const exec = [...args.matchAll(/<string>([^<]*)<\/string>/g)].map((m) => unxml(m[1]!));
  const vars = /<key>EnvironmentVariables<\/key>\s*<dict>([\s\S]*?)<\/dict>/.exec(text)?.[1] ?? "";
  const env: Record<string, string> = {};
  for (const m of vars.matchAll(/<key>([^<]*)<\/key>\s*<string>([^<]*)<\/string>/g)) env[unxml(m[1]!)] = unxml(m[2]!);
  return { exec, env };
}
