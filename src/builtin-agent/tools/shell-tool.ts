/** run_shell_command: one shell command in the workspace, with a timeout and an output cap. */
import { isReadOnlyCommand } from "./read-only-command.ts";
import { shellProtectedPath } from "./shell-protected.ts";
import { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS, SHELL_OUTPUT_CAP_BYTES } from "./shell-runner.ts";
import { capForModel, intArg, stringArg, textContent, ToolInputError, type AgentTool } from "./tool.ts";

/** Longest command accepted. */
const MAX_COMMAND_CHARS = 16 * 1024;

export const shellTool: AgentTool = {
  name: "run_shell_command",
  description: `Run a command with /bin/sh -c in the workspace directory. Output (stdout and stderr together) is cut after ${SHELL_OUTPUT_CAP_BYTES} bytes; the command is killed after timeout_ms (default ${DEFAULT_SHELL_TIMEOUT_MS}).`,
  parameters: {
    type: "object",
    properties: { command: { type: "string" }, description: { type: "string" }, timeout_ms: { type: "integer", minimum: 1, maximum: MAX_SHELL_TIMEOUT_MS } },
    required: ["command"],
  },
  kind: "execute",
  toolClass: "execute",
  async prepare(args, context) {
    const command = stringArg(args, "command");
    if (command.trim() === "") throw new ToolInputError("command must not be empty");
    if (command.length > MAX_COMMAND_CHARS) throw new ToolInputError(`command is longer than ${MAX_COMMAND_CHARS} characters`);
    const timeoutMs = intArg(args, "timeout_ms", 1, MAX_SHELL_TIMEOUT_MS) ?? DEFAULT_SHELL_TIMEOUT_MS;
    const readOnlyCommand = await isReadOnlyCommand(command, context.files.root, context.shell.env.PATH ?? "");
    // The read-only class writes nothing; any other command that names a protected path asks every time.
    const protectedPath = readOnlyCommand ? null : shellProtectedPath(command, context.files.root, context.protectedFolders);
    return {
      title: command.length > 80 ? `${command.slice(0, 80)}…` : command,
      preview: [textContent(`$ ${command}`)],
      readOnlyCommand,
      ...(protectedPath === null ? {} : { protectedPath }),
      // `proceed_always` on a command approves that exact command again, not every command.
      alwaysScope: { key: `run_shell_command\0${command}`, label: "Always allow this exact command" },
      async run({ shell, signal }) {
        const r = await shell.run(command, { timeoutMs, signal });
        const status = r.timedOut ? `killed after ${timeoutMs} ms timeout` : r.cancelled ? "cancelled" : r.signal ? `killed by ${r.signal}` : `exit code ${r.exitCode}`;
        const cut = r.truncated ? `\n[output cut: ${r.totalBytes - SHELL_OUTPUT_CAP_BYTES} more bytes not kept]` : "";
        const text = `${r.output}${cut}\n[${status}]`;
        return { text: capForModel(text), content: [textContent(text)], rawOutput: { exitCode: r.exitCode, signal: r.signal, timedOut: r.timedOut, truncated: r.truncated } };
      },
    };
  },
};
