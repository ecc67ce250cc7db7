/** The usage texts of `svc --help` and `svc serve --help`: the commands, the flag table, the model variables; nothing that runs. */
import { ENV_PROVIDERS } from "./config/env-providers.ts";
import { flagHelp } from "./config/flags.ts";
import { VERSION } from "./version.ts";

/** Every command `src/main.ts` runs, with its arguments and what it does. */
const COMMANDS: readonly (readonly [string, string])[] = [
  ["svc serve [flags]", "run the daemon (the default command; svc serve --help)"],
  ["svc agents", "list the agents svc can run and whether each is installed"],
  ["svc agents install <name>", "install an agent's pinned package (svc agents --help)"],
  ["svc trust <dir> | --revoke <dir> | --list", "trust a folder, take its trust back, list decisions (svc trust --help)"],
  ["svc service install | uninstall | status", "run svc serve as a user service under systemd or launchd (svc service --help)"],
  ["svc discover [--workspace <dir>]", "print the running daemon for a workspace as JSON (exit 1: none)"],
  ["svc update [--apply]", "check for a newer release; --apply installs it over this binary (svc update --help)"],
  ["svc --acp", "run the built-in agent on stdin/stdout (what the daemon starts; for ACP clients)"],
  ["svc --version [--verbose]", "print the version (--verbose: and the release signing key)"],
  ["svc --help", "print this help"],
];

/** How the built-in agent gets a model, in plain words: the variables it reads and the settings file. */
export function modelHelp(): string {
  const lines = ENV_PROVIDERS.map((p) => {
    const url = p.baseUrlEnv === null ? "" : ` (${p.baseUrlEnv}: another server with the same API)`;
    return `  ${p.keyEnv} and ${p.modelEnv}${url}`;
  });
  const text = [
    "The built-in agent (the default --agent) needs a model. Set one of these pairs before starting:",
    ...lines,
    "  or, for a local server without a key (Ollama, llama.cpp, vLLM): OPENAI_BASE_URL and OPENAI_MODEL,",
    "  e.g. OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen2.5-coder",
    'or list models under "model": {"providers": [...]} in $SVC_HOME/settings.json (see the README).',
    "Without a model the daemon still starts, says so, and each prompt ends with an error naming what to set.",
  ];
  return text.map((line) => `  ${line}`).join("\n");
}

export const serveUsage = () =>
  `usage: svc serve [flags]\n\nflags:\n${flagHelp()}\n\nmodel:\n${modelHelp()}\n\nenvironment:\n  SVC_HOME  the folder svc keeps its data, settings.json and installed agents in
            (default: ~/.local/share/svc; ~/Library/Application Support/svc on macOS; %APPDATA%\\svc on Windows)\n`;

export const mainUsage = () => {
  const width = Math.max(...COMMANDS.map(([command]) => command.length)) + 2;
  const commands = COMMANDS.map(([command, what]) => `  ${command.padEnd(width)}${what}`).join("\n");
  return `svc ${VERSION}: HTTP + SSE daemon for ACP coding agents\n\nusage:\n${commands}\n\n${serveUsage()}`;
};
