/**
 * The systemd user unit `svc service install` writes, and reading back what it runs.
 *
 * Every word is double-quoted per systemd.syntax(7): inside the quotes `\` and `"` are escaped, a
 * control character is a C escape, `%` (a specifier) is `%%`; in `ExecStart=` `$` (a variable
 * reference) is `$$` too. So any path or flag value reaches `svc serve` as it was given.
 *
 * The unit: `Type=exec` (a binary that cannot be started fails the start job), restarts on failure
 * after 2 s (at most 5 starts in 60 s, then it stays failed: a bad flag is not retried forever),
 * stdout and stderr to the journal, `KillMode=mixed` (SIGTERM to the daemon alone, which stops its
 * agents itself; whatever is left gets SIGKILL when the stop times out), and hardening that
 * leaves the daemon and its agents working: no privilege gain (setuid programs such as sudo do not
 * elevate under it), files private by default (`UMask=0077`), no realtime scheduling, no setuid
 * files created, no personality change. `MemoryDenyWriteExecute=` is left out: the JavaScript JIT
 * needs writable executable memory.
 */
import { SYSTEMD_UNIT } from "../config/service-config.ts";

export interface UnitSpec {
  readonly command: readonly string[];
  readonly serveArgs: readonly string[];
  readonly dataDir: string;
  readonly tokenFile: string;
  readonly path: string;
  readonly version: string;
}

const C_ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r" };

/** One word, double-quoted for a unit file; `execLine` also doubles `$`. */
export function quoteWord(word: string, execLine: boolean): string {
  let out = "";
  for (const c of word) {
    const code = c.codePointAt(0)!;
    if (C_ESCAPES[c] !== undefined) out += C_ESCAPES[c];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (c === "%") out += "%%";
    else if (c === "$" && execLine) out += "$$";
    else out += c;
  }
  return `"${out}"`;
}

/** The `svc serve` command line of the unit: the binary, `serve`, the flags, `--token-file`. */
export const serveCommandLine = (spec: UnitSpec): string[] => [...spec.command, "serve", ...spec.serveArgs, `--token-file=${spec.tokenFile}`];

/** How the unit file svc writes begins: install overwrites and uninstall removes no file without it. */
export const UNIT_HEADER = "# Written by svc service install (svc ";

export function unitText(spec: UnitSpec): string {
  const exec = serveCommandLine(spec).map((w) => quoteWord(w, true)).join(" ");
  return `${UNIT_HEADER}${spec.version}); svc service uninstall removes it.
# The bearer token is in the --token-file, never here.
[Unit]
Description=svc: HTTP + SSE daemon for ACP coding agents
StartLimitIntervalSec=60
StartLimitBurst=5

[Service]
Type=exec
ExecStart=${exec}
Environment=${quoteWord(`SVC_HOME=${spec.dataDir}`, false)}
Environment=${quoteWord(`PATH=${spec.path}`, false)}
Restart=on-failure
RestartSec=2s
KillMode=mixed
TimeoutStopSec=10s
StandardOutput=journal
StandardError=journal
SyslogIdentifier=svc
NoNewPrivileges=yes
UMask=0077
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes

[Install]
WantedBy=default.target
`;
}

/**
 * Splits a unit line's value into words as systemd does for the forms `quoteWord` writes (and
 * single quotes, bare words, C escapes); `execLine` also reads `$$` as `$`. Null for an unbalanced quote.
 */
export function splitWords(value: string, execLine: boolean): string[] | null {
  const words: string[] = [];
  let i = 0;
  const unescape = (): string => {
    const next = value[i + 1];
    if (next === "x") {
      const hex = value.slice(i + 2, i + 4);
      i += 4;
      return String.fromCharCode(parseInt(hex, 16));
    }
    i += 2;
    return next === "n" ? "\n" : next === "t" ? "\t" : next === "r" ? "\r" : next === "s" ? " " : (next ?? "");
  };
  while (i < value.length) {
    if (/\s/.test(value[i]!)) {
      i++;
      continue;
    }
    let word = "";
    let quote: string | null = null;
    while (i < value.length && (quote !== null || !/\s/.test(value[i]!))) {
      const c = value[i]!;
      if (quote === null && (c === '"' || c === "'")) {
        quote = c;
        i++;
      } else if (quote !== null && c === quote) {
        quote = null;
        i++;
      } else if (c === "\\") word += unescape();
      else if (c === "%" && value[i + 1] === "%") {
        word += "%";
        i += 2;
      } else if (c === "$" && execLine && value[i + 1] === "$") {
        word += "$";
        i += 2;
      } else {
        word += c;
        i++;
      }
    }
    if (quote !== null) return null;
    words.push(word);
  }
  return words;
}

/** What an installed unit runs: its ExecStart words and Environment variables (first of each key). */
export function readUnit(text: string): { exec: string[]; env: Record<string, string> } {
  const exec: string[] = [];
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^\s*(ExecStart|Environment)\s*=\s*(.*)$/.exec(line);
    if (match === null) continue;
    const words = splitWords(match[2]!, match[1] === "ExecStart") ?? [];
    if (match[1] === "ExecStart" && exec.length === 0) exec.push(...words);
    if (match[1] === "Environment")
      for (const word of words) {
        const eq = word.indexOf("=");
        if (eq > 0 && !(word.slice(0, eq) in env)) env[word.slice(0, eq)] = word.slice(eq + 1);
      }
  }
  return { exec, env };
}

/** The commands that finish an install by hand, when `systemctl --user` could not be reached. */
export const manualInstall = (): string[] => ["systemctl --user daemon-reload", `systemctl --user enable --now ${SYSTEMD_UNIT}`];
