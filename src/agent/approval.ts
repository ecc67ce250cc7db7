/**
 * Approval modes: whether a tool call runs, asks the client first (`session/request_permission`),
 * or is refused. Pure; the turn asks and remembers `proceed_always` answers.
 *
 * | mode        | read tools | file edits | read-only shell | other shell |
 * |-------------|------------|------------|-----------------|-------------|
 * | `plan`      | run        | refused    | refused         | refused     |
 * | `default`   | run        | ask        | ask             | ask         |
 * | `auto-edit` | run        | run        | ask             | ask         |
 * | `auto`      | run        | ask        | run             | ask         |
 * | `yolo`      | run        | run        | run             | run         |
 *
 * `auto` (the default) approves the one class of read-only shell commands (`isReadOnlyCommand`:
 * a command from a fixed table whose every flag and operand its spec accounts for, paths resolving
 * inside the workspace; documented in tools/read-only-command.ts) and asks for
 * everything that changes something. Read tools never ask: they cannot leave the workspace.
 */
import type { ApprovalMode } from "../config/agent-config.ts";

/** What a tool does, for the mode table. */
export type ToolClass = "read" | "edit" | "execute";

export type Decision = "run" | "ask" | "refuse";

export function decide(mode: ApprovalMode, toolClass: ToolClass, readOnlyCommand: boolean): Decision {
  if (toolClass === "read") return "run";
  switch (mode) {
    case "plan":
      return "refuse";
    case "default":
      return "ask";
    case "auto-edit":
      return toolClass === "edit" ? "run" : "ask";
    case "auto":
      return toolClass === "execute" && readOnlyCommand ? "run" : "ask";
    case "yolo":
      return "run";
  }
}

/** The ACP session modes, in the reference agent's ids. */
export const SESSION_MODES = [
  { id: "plan", name: "Plan", description: "Read-only: file edits and shell commands are refused" },
  { id: "default", name: "Default", description: "Ask before every file edit and shell command" },
  { id: "auto-edit", name: "Auto Edit", description: "Edit files without asking; ask before shell commands" },
  { id: "auto", name: "Auto", description: "Run read-only shell commands without asking; ask before edits and other commands" },
  { id: "yolo", name: "YOLO", description: "Never ask" },
] as const;
