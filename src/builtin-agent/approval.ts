/**
 * Approval modes: whether a tool call runs, asks the client first (`session/request_permission`),
 * or is refused. Pure; the turn asks and remembers `proceed_always` answers.
 *
 * | mode        | read tools | file edits | read-only shell | other shell | protected path |
 * |-------------|------------|------------|-----------------|-------------|----------------|
 * | `plan`      | run        | refused    | refused         | refused     | refused        |
 * | `default`   | run        | ask        | ask             | ask         | ask            |
 * | `auto-edit` | run        | run        | ask             | ask         | ask            |
 * | `auto`      | run        | ask        | run             | ask         | ask            |
 * | `yolo`      | run        | run        | run             | run         | run            |
 *
 * The last column is an edit, or a command, that writes a protected path
 * (`workspace/protected-paths.ts`: `.git/`, `.svc/`, other agents' folders, editor and CI config,
 * `.env*`); its ask is never spared by a remembered `proceed_always` (see tool-call.ts).
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

export function decide(mode: ApprovalMode, toolClass: ToolClass, readOnlyCommand: boolean, protectedPath: boolean): Decision {
  if (toolClass === "read" || mode === "yolo") return "run";
  if (mode === "plan") return "refuse";
  if (protectedPath) return "ask";
  switch (mode) {
    case "default":
      return "ask";
    case "auto-edit":
      return toolClass === "edit" ? "run" : "ask";
    case "auto":
      return toolClass === "execute" && readOnlyCommand ? "run" : "ask";
  }
}

/** The ACP session modes, in the reference agent's ids. */
export const SESSION_MODES = [
  { id: "plan", name: "Plan", description: "Read-only: file edits and shell commands are refused" },
  { id: "default", name: "Default", description: "Ask before every file edit and shell command" },
  { id: "auto-edit", name: "Auto Edit", description: "Edit files without asking, except protected paths (.git, .svc, .env…); ask before shell commands" },
  { id: "auto", name: "Auto", description: "Run read-only shell commands without asking; ask before edits and other commands" },
  { id: "yolo", name: "YOLO", description: "Never ask" },
] as const;
