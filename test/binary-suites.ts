/**
 * The suites that run against the compiled binary as well as the sources, and their runner:
 *
 *   npm run build && npm run test:binary            # against dist/svc
 *   SVC_TEST_BINARY=/path/to/svc npm run test:binary [-- <bun test flags>]
 *
 * Every suite that drives the daemon over HTTP belongs here (request validation, the security
 * chain, file routes, error bodies, sessions, events, the hostile probe, parity, the web UI in a
 * browser): whatever guards the API surface is tested against the product. A new test file under a listed folder runs here
 * by default; one that cannot (it reaches into `d.daemon` or checks what only the sources report)
 * goes into IN_PROCESS_ONLY with the reason.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const TEST_ROOT = import.meta.dir;

/** Folders whose every test file runs against the binary, except IN_PROCESS_ONLY. */
const FOLDERS = ["http", "integration", "browser"];
/** Single files from other folders. */
const FILES = [
  "e2e/hostile-probe.test.ts",
  "e2e/binary-parity.test.ts",
  // The module guard: what an idle daemon has loaded, read from the binary's own module registry.
  "e2e/boot-modules.test.ts",
  // The launcher contract (--ready-json, --parent-pid, discovery files) is a surface of the binary too.
  "e2e/launcher-ready-json.test.ts",
  "e2e/launcher-parent-pid.test.ts",
  "e2e/launcher-discovery.test.ts",
  // --token-file's checks and svc service's units are the binary's own: its path is what a unit runs.
  "e2e/token-file.test.ts",
  "e2e/service-command.test.ts",
  "e2e/launchd-restarts.test.ts",
  // The first run: the listening line, the no-model warning and --open are what a new user meets.
  "e2e/first-run.test.ts",
  // The shutdown bound with agents that start badly or resist, and stderr kept to the logger.
  "e2e/launcher-shutdown-start.test.ts",
  // The built-in agent inside the binary: its status surface, grep's Worker, and a daemon driving it.
  "builtin-agent/agent-status.test.ts",
  // The agent's front answers initialize and session/new as the SDK app does, and hands it the connection, in the bundle too.
  "builtin-agent/agent-front.test.ts",
  "builtin-agent/agent-grep.test.ts",
  // The system prompt (instruction files, environment, language) and compaction, in the bundle too.
  "builtin-agent/agent-context.test.ts",
  "e2e/agent-daemon.test.ts",
  // A provider key set through the API: in no log, answer or environment of the binary's processes.
  "e2e/auth-secrets.test.ts",
  // The built-in agent's guards in the binary: the auto-approved shell class, bounded ACP output, no orphans.
  "builtin-agent/agent-auto-class.test.ts",
  "e2e/agent-bounds.test.ts",
  // The model's HTTP response and a streamable HTTP MCP server's answers, bounded in bytes before they are parsed.
  "builtin-agent/agent-response-bounds.test.ts",
  "builtin-agent/agent-mcp-bounds.test.ts",
  "builtin-agent/agent-orphans.test.ts",
  // A shell command deaf to SIGTERM is still killed; an option id the agent never offered runs nothing.
  "builtin-agent/agent-shell-term.test.ts",
  "builtin-agent/agent-permission-options.test.ts",
  // Issue 22: protected paths always ask; the agent's programs are the user's, never the workspace's.
  "builtin-agent/agent-protected-paths.test.ts",
  "builtin-agent/agent-host-programs.test.ts",
  "builtin-agent/agent-device-names.test.ts",
  "e2e/agent-protected-daemon.test.ts",
  // Commands cannot read the built-in agent's keys, and what they detach ends with their session and survives no daemon SIGKILL.
  "e2e/agent-secrets.test.ts",
  "e2e/agent-detached.test.ts",
  // Folder trust in the built-in agent inside the binary: its own decision from the trust store, the daemon's argument, live changes.
  "builtin-agent/agent-trust.test.ts",
  // Agent selection (--agent, profiles, not-installed answers) and `svc agents install` in the product.
  "e2e/agents-launch.test.ts",
  "e2e/agents-install.test.ts",
  // The client SDK is the API's first client: its REST calls and event stream against the product.
  "client/client-rest.test.ts",
  "client/client-subscribe.test.ts",
  "client/subscription-restore.test.ts",
  "client/example-script.test.ts",
];
/** Test files under FOLDERS that only the in-process daemon can run, and why. */
const IN_PROCESS_ONLY: Record<string, string> = {
  "http/daemon-status.test.ts": "expects the test process's pid and the 0.0.0-test version in /daemon/status",
  "integration/runtime-lifecycle.test.ts": "stops the daemon through d.daemon.stop() with its own deadline",
  "integration/agent-builtin.test.ts": "finds the agent among the test process's own children; agent-binary.test.ts runs the built-in agent under the binary",
};

export function binarySuites(): string[] {
  const inFolders = FOLDERS.flatMap((folder) =>
    readdirSync(join(TEST_ROOT, folder), { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => `${folder}/${name}`),
  );
  for (const file of Object.keys(IN_PROCESS_ONLY)) if (!inFolders.includes(file)) throw new Error(`IN_PROCESS_ONLY names ${file}, which does not exist`);
  for (const file of FILES) if (!existsSync(join(TEST_ROOT, file))) throw new Error(`FILES names ${file}, which does not exist`);
  return [...inFolders.filter((file) => !(file in IN_PROCESS_ONLY)), ...FILES].sort();
}

if (import.meta.main) {
  const binary = process.env.SVC_TEST_BINARY || "dist/svc";
  if (!existsSync(binary)) {
    process.stderr.write(`test:binary: no binary at ${binary}; build it with \`npm run build\` or set SVC_TEST_BINARY\n`);
    process.exit(2);
  }
  const files = binarySuites().map((file) => `./${relative(process.cwd(), join(TEST_ROOT, file))}`);
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "30000", ...process.argv.slice(2), ...files], {
    env: { ...process.env, SVC_TEST_TARGET: "binary", SVC_TEST_BINARY: binary },
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(await proc.exited);
}
