/**
 * What a built-in tool is: its schema for the model, its class for the approval modes, and how it
 * runs. Tools are confined to the workspace through `WorkspaceFiles`, the same code (and rules) as
 * the daemon's file routes.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { absoluteOf, normalizeRequestPath } from "../../workspace/paths.ts";
import type { WorkspaceFiles } from "../../workspace/workspace-files.ts";
import type { ToolClass } from "../approval.ts";
import type { SubagentRequest } from "../subagents/task-tool.ts";
import type { ShellRunner } from "./shell-runner.ts";

/** Characters of one tool result sent back to the model; past it the text is cut and says so. */
export const TOOL_RESULT_CAP_CHARS = 32 * 1024;

export interface ToolContext {
  readonly files: WorkspaceFiles;
  readonly shell: ShellRunner;
  /** ripgrep's path when the shell environment's PATH has one outside the workspace (`host-executable.ts`), else null (grep's built-in engine). */
  readonly ripgrep: string | null;
  /**
   * Folders protected besides the fixed rule (`workspace/protected-paths.ts`), workspace-relative:
   * svc's data dir when it lies inside the workspace (a home folder opened as one), whose settings
   * and trust store decide what runs unasked.
   */
  readonly protectedFolders: readonly string[];
  /** Aborted when the turn is cancelled. */
  readonly signal: AbortSignal;
  /** Publishes an ACP `plan` update for the session. */
  readonly publishPlan: (entries: acp.PlanEntry[]) => Promise<void>;
  /**
   * Tells the client a file (absolute path) is about to be written, and resolves once it kept the
   * file's content for a rewind (`svc/checkpoint/before_write`); a client that does not keep it
   * (or fails to) does not stop the write.
   */
  readonly beforeWrite: (path: string) => Promise<void>;
  /** The running call's id as the client sees it (set by `tool-call.ts` for the run). */
  readonly toolCallId?: string;
  /** Runs a subagent under the call `toolCallId` (`subagents/run-subagent.ts`); absent inside a subagent. */
  readonly runSubagent?: (toolCallId: string, request: SubagentRequest) => Promise<ToolOutcome>;
}

/** A call the tool has checked and is ready to run (after approval, when it needs one). */
export interface PreparedCall {
  readonly title: string;
  readonly locations?: acp.ToolCallLocation[];
  /** Shown with the permission ask and on the tool call (diffs of edits). */
  readonly preview?: acp.ToolCallContent[];
  /** For `auto` mode: a shell command of the read-only class. */
  readonly readOnlyCommand?: boolean;
  /**
   * What a `proceed_always` answer to this call covers for the rest of the session, and the
   * option's label. Default: the tool's name (every later call of the same tool, never another
   * tool). run_shell_command narrows it to the exact command line.
   */
  readonly alwaysScope?: AlwaysScope;
  /**
   * The protected path (`workspace/protected-paths.ts`) this call writes, as the user is shown it.
   * Set, the call asks in every mode but yolo (plan refuses) and no `proceed_always` is offered or
   * honoured for it.
   */
  readonly protectedPath?: string;
  run(context: ToolContext): Promise<ToolOutcome>;
}

export interface AlwaysScope {
  readonly key: string;
  readonly label: string;
}

export interface ToolOutcome {
  /** What the model is told. */
  readonly text: string;
  readonly content?: acp.ToolCallContent[];
  readonly rawOutput?: Record<string, unknown>;
}

export interface AgentTool {
  readonly name: string;
  /** Other names whose toggle applies to this tool too (an MCP tool's plain and distinct names, `mcp-tools.ts`). */
  readonly disableNames?: readonly string[];
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Record<string, unknown>;
  readonly kind: acp.ToolKind;
  readonly toolClass: ToolClass;
  /** Validates the arguments and computes previews; throws `ToolInputError` on bad input. */
  prepare(args: Record<string, unknown>, context: ToolContext): Promise<PreparedCall>;
}

/** Bad arguments from the model: reported back to it as the tool's result. */
export class ToolInputError extends Error {}

export function stringArg(args: Record<string, unknown>, name: string): string;
export function stringArg(args: Record<string, unknown>, name: string, optional: true): string | undefined;
export function stringArg(args: Record<string, unknown>, name: string, optional = false): string | undefined {
  const value = args[name];
  if (value === undefined && optional) return undefined;
  if (typeof value !== "string") throw new ToolInputError(`argument ${name} must be a string`);
  return value;
}

export function intArg(args: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const value = args[name];
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) throw new ToolInputError(`argument ${name} must be a whole number from ${min} to ${max}`);
  return value as number;
}

/** Cuts text for the model at TOOL_RESULT_CAP_CHARS, saying how much was left out. */
export function capForModel(text: string): string {
  if (text.length <= TOOL_RESULT_CAP_CHARS) return text;
  return `${text.slice(0, TOOL_RESULT_CAP_CHARS)}\n[output truncated: ${text.length - TOOL_RESULT_CAP_CHARS} more characters not shown]`;
}

export const textContent = (text: string): acp.ToolCallContent => ({ type: "content", content: { type: "text", text } });

/** The absolute path of a workspace path the model gave; refuses paths outside (FsError). */
export const locate = (files: WorkspaceFiles, path: string): string => absoluteOf(files.root, normalizeRequestPath(files.root, path));
