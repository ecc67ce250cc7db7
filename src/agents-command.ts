/**
 * `svc agents`: lists the known agents (name, package@pin, install state, runtime, path) on stdout.
 * `svc agents install <name>`: installs the pinned package into svc's agent directory
 * (`agent-install/install.ts`), printing bun's output on stderr and the installed entry on stdout.
 * Bad arguments print one line on stderr and exit 2; a failed install exits 1, an interrupted one
 * (SIGTERM, SIGINT) 128 + the signal's number, having removed what it staged.
 */
import { constants as osConstants } from "node:os";
import { agentRows, describeState } from "./agent-install/inventory.ts";
import { AGENTS_USAGE, resolveAgentsConfig, type AgentsConfig } from "./config/agents-config.ts";
import { BootError } from "./config/boot-error.ts";
import { AgentInstallError } from "./agent-install/install-error.ts";

const INTERRUPTS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT"];

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ").trimEnd()).join("\n") + "\n";
}

export async function agentsCommand(args: readonly string[]): Promise<void> {
  let config: AgentsConfig;
  try {
    config = resolveAgentsConfig({ args, env: process.env });
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    process.stderr.write(`svc agents: ${err.message}\n`);
    process.exit(2);
  }
  const { command } = config;
  if (command.kind === "help") {
    process.stdout.write(AGENTS_USAGE);
    return;
  }
  if (command.kind === "list") {
    const rows = agentRows(config).map((r) => [r.name, r.pkg ?? "-", describeState(r.state), r.runtime, r.path ?? "-"]);
    process.stdout.write(table([["AGENT", "PACKAGE", "STATE", "RUNTIME", "PATH"], ...rows]));
    return;
  }
  // SIGTERM or SIGINT ends bun add and removes the staging tree before exiting 128 + the signal's number.
  const interrupt = new AbortController();
  let signalled: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled ??= signal;
    interrupt.abort();
  };
  for (const signal of INTERRUPTS) process.on(signal, onSignal);
  try {
    // The installer (bun add, staging, its watchdog) is loaded only for `install`, never for the list.
    const { installAgent } = await import("./agent-install/install.ts");
    const done = await installAgent({ dataDir: config.dataDir, agent: command.agent, registry: config.registry, execPath: config.execPath, proxyEnv: config.proxyEnv, log: (line) => process.stderr.write(`${line}\n`), signal: interrupt.signal });
    process.stdout.write(`installed ${command.agent} ${done.version}: ${done.path}\n`);
  } catch (err) {
    if (!(err instanceof AgentInstallError)) throw err;
    process.stderr.write(`svc agents install ${command.agent}: ${err.message}\n`);
    process.exit(signalled === null ? 1 : 128 + osConstants.signals[signalled]);
  } finally {
    for (const signal of INTERRUPTS) process.off(signal, onSignal);
  }
}
