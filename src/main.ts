/**
 * svc entry point: `svc serve [flags]` (the default), `svc discover`, `svc agents`, `svc trust`, `svc update`, `svc service`, `svc --version [--verbose]`, `svc --help`.
 *
 * This file is the commands' seam: each command's code is imported here, when it runs, and never
 * before, so `svc --version` loads the version and nothing else, `svc discover` the discovery
 * files, and the daemon never the built-in agent (`--acp`) or the commands' code.
 */
import { printOut } from "./logging/print-out.ts";
import { VERSION } from "./version.ts";

const processStartedAt = Date.now() - Math.round(performance.now());

const args = process.argv.slice(2);
const [first, ...rest] = args;

if (first === "--version" || first === "-v" || first === "version") {
  // --verbose adds the release signing key this build trusts (what install.sh checks releases with).
  const verbose = rest[0] === "--verbose" ? `release key ${(await import("./release/public-key.ts")).RELEASE_PUBLIC_KEY}\n` : "";
  printOut(`${VERSION}\n${verbose}`);
} else if (first === "--help" || first === "-h" || first === "help") {
  printOut((await import("./usage.ts")).mainUsage());
} else if (first === "--acp") {
  await (await import("./builtin-agent/run-agent.ts")).runAgent({ env: process.env, cwd: process.cwd(), args: rest });
} else if (first === "serve") {
  await (await import("./serve-command.ts")).serveCommand(rest, processStartedAt);
} else if (first === "agents") {
  await (await import("./agents-command.ts")).agentsCommand(rest);
} else if (first === "trust") {
  (await import("./trust-command.ts")).trustCommand(rest);
} else if (first === "update") {
  await (await import("./update/index.ts")).updateCommand(rest);
} else if (first === "service") {
  await (await import("./service/index.ts")).serviceCommand(rest);
} else if (first === "discover") {
  (await import("./discover-command.ts")).discoverCommand(rest);
} else if (first === undefined || first.startsWith("--")) {
  await (await import("./serve-command.ts")).serveCommand(args, processStartedAt);
} else {
  process.stderr.write(`svc: unknown command ${JSON.stringify(first)} (try svc --help)\n`);
  process.exit(2);
}
