/** svc entry point: `svc serve [flags]` (the default), `svc discover`, `svc agents`, `svc trust`, `svc --version`, `svc --help`. */
import { VERSION } from "./version.ts";

const processStartedAt = Date.now() - Math.round(performance.now());
const USAGE = `svc ${VERSION}: HTTP + SSE daemon for ACP coding agents\n\nusage:\n  svc serve [flags]   run the daemon (the default command)\n  svc discover [--workspace <dir>]\n                      print the running daemon for a workspace as JSON (exit 1: none)\n  svc trust <dir> | --revoke <dir> | --list\n                      trust a folder (svc trust --help)\n  svc --version       print the version\n\n`;
// Every command's code is imported in its own branch, so each loads only what it runs (`svc --acp` only the agent).

const args = process.argv.slice(2);
const [first, ...rest] = args;

if (first === "--version" || first === "-v" || first === "version") {
  process.stdout.write(`${VERSION}\n`);
} else if (first === "--help" || first === "-h" || first === "help") {
  process.stdout.write(`${USAGE}${(await import("./serve-command.ts")).SERVE_USAGE}`);
} else if (first === "--acp") {
  // The built-in agent is imported only here, so the daemon never loads it.
  await (await import("./builtin-agent/run-agent.ts")).runAgent({ env: process.env, cwd: process.cwd(), args: rest });
} else if (first === "serve") {
  await (await import("./serve-command.ts")).serveCommand(rest, processStartedAt);
} else if (first === "agents") {
  await (await import("./agents-command.ts")).agentsCommand(rest);
} else if (first === "trust") {
  // Loaded only here: a daemon never needs the command's code.
  (await import("./trust-command.ts")).trustCommand(rest);
} else if (first === "discover") {
  (await import("./discover-command.ts")).discoverCommand(rest);
} else if (first === undefined || first.startsWith("--")) {
  await (await import("./serve-command.ts")).serveCommand(args, processStartedAt);
} else {
  process.stderr.write(`svc: unknown command ${JSON.stringify(first)} (try svc --help)\n`);
  process.exit(2);
}
