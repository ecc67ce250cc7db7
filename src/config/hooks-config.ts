/**
 * Hook definitions: shell commands the built-in agent runs at points of its work, in the shape the
 * reference agent and Claude Code read from their settings:
 *
 *   "hooks": { "PreToolUse": [ { "matcher": "write_file|edit", "hooks": [ { "type": "command", "command": "…", "timeout": 10 } ] } ] }
 *
 * Events (HOOK_EVENTS): before and after a tool call, at prompt submit, at session start and end.
 * `matcher` (tool events only) is a `|`-separated list of tool names, each of which may use `*` as
 * a wildcard; empty, absent or `*` matches every tool. (No regular expressions: a workspace's
 * settings are untrusted input, and a pattern's run time would be theirs to choose.) `timeout` is in
 * seconds (1..MAX_HOOK_TIMEOUT_SECONDS, default DEFAULT_HOOK_TIMEOUT_SECONDS). Only `type:
 * "command"` exists here; other types are ignored with a warning.
 *
 * Where they come from: the data dir's `settings.json` (source `user`, always honoured) and the
 * workspace's `.svc/settings.json` (source `project`, honoured only while the folder is trusted: a
 * fresh clone must not run anything); `disableAllHooks: true` in either file turns every hook off
 * (disabling only narrows, so the workspace may). Session hooks come through the daemon's API
 * (`parseHookDefinition`, source `session`). Problems are warnings; the entry is ignored.
 */
import type { SettingsDoc } from "./settings-doc.ts";

export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** What each event is, for the status routes (the reference's `events` map, restricted to these). */
export const HOOK_EVENT_INFO: Readonly<Record<HookEvent, { description: string; matcherKind?: string }>> = {
  PreToolUse: { description: "Before tool execution", matcherKind: "toolName" },
  PostToolUse: { description: "After tool execution", matcherKind: "toolName" },
  UserPromptSubmit: { description: "When the user submits a prompt" },
  SessionStart: { description: "When a session starts working (its first prompt)" },
  SessionEnd: { description: "When a session is closed" },
};

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
export const MAX_HOOK_TIMEOUT_SECONDS = 600;
/** Hooks read from one settings file; the rest are ignored with a warning. */
export const MAX_HOOKS_PER_FILE = 64;
/** Longest hook command, matcher and name accepted. */
export const MAX_HOOK_COMMAND_CHARS = 16 * 1024;
export const MAX_HOOK_MATCHER_CHARS = 512;
export const MAX_HOOK_NAME_CHARS = 256;

export type HookSource = "user" | "project" | "session";

export interface HookDefinition {
  readonly id: string;
  readonly event: HookEvent;
  /** null: every tool (and the only value for events without tools). */
  readonly matcher: string | null;
  readonly command: string;
  readonly timeoutSeconds: number;
  readonly name?: string;
  readonly description?: string;
  readonly source: HookSource;
}

export interface HooksSettings {
  readonly user: readonly HookDefinition[];
  readonly project: readonly HookDefinition[];
  readonly disabled: boolean;
}

const isEvent = (value: unknown): value is HookEvent => typeof value === "string" && (HOOK_EVENTS as readonly string[]).includes(value);
const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set(["PreToolUse", "PostToolUse"]);

/**
 * One hook's definition from `{eventName, matcher?, command, timeout?, name?, description?}` fields,
 * or the reason it is refused. Shared by the settings reader and the session-hook control.
 */
export function parseHookDefinition(fields: { event: unknown; matcher?: unknown; hook: Record<string, unknown> }, source: HookSource, id: string): HookDefinition | string {
  const { event, matcher, hook } = fields;
  if (!isEvent(event)) return `unknown hook event ${JSON.stringify(String(event)).slice(0, 80)}; one of ${HOOK_EVENTS.join(", ")}`;
  if (hook.type !== undefined && hook.type !== "command") return `only "command" hooks are supported`;
  const command = hook.command;
  if (typeof command !== "string" || command.trim() === "") return "command must be a non-empty string";
  if (command.length > MAX_HOOK_COMMAND_CHARS) return `command is longer than ${MAX_HOOK_COMMAND_CHARS} characters`;
  if (matcher !== undefined && matcher !== null && (typeof matcher !== "string" || matcher.length > MAX_HOOK_MATCHER_CHARS)) return `matcher must be a string of at most ${MAX_HOOK_MATCHER_CHARS} characters`;
  const timeout = hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
  if (!Number.isSafeInteger(timeout) || (timeout as number) < 1 || (timeout as number) > MAX_HOOK_TIMEOUT_SECONDS) return `timeout must be a whole number of seconds from 1 to ${MAX_HOOK_TIMEOUT_SECONDS}`;
  for (const key of ["name", "description"] as const)
    if (hook[key] !== undefined && (typeof hook[key] !== "string" || (hook[key] as string).length > MAX_HOOK_NAME_CHARS)) return `${key} must be a string of at most ${MAX_HOOK_NAME_CHARS} characters`;
  const pattern = typeof matcher === "string" && matcher.trim() !== "" && matcher.trim() !== "*" && TOOL_EVENTS.has(event) ? matcher.trim() : null;
  return {
    id,
    event,
    matcher: pattern,
    command,
    timeoutSeconds: timeout as number,
    ...(typeof hook.name === "string" ? { name: hook.name } : {}),
    ...(typeof hook.description === "string" ? { description: hook.description } : {}),
    source,
  };
}

/** The `hooks` of one settings file (see the header). */
export function hooksOf(file: string, doc: SettingsDoc, source: "user" | "project", warnings: string[]): HookDefinition[] {
  const declared = doc.hooks;
  if (declared === undefined) return [];
  if (declared === null || typeof declared !== "object" || Array.isArray(declared)) {
    warnings.push(`${file}: hooks must be an object; ignored`);
    return [];
  }
  const hooks: HookDefinition[] = [];
  for (const [event, groups] of Object.entries(declared)) {
    if (!Array.isArray(groups)) {
      warnings.push(`${file}: hooks.${event} must be an array; ignored`);
      continue;
    }
    groups.forEach((group: unknown, g) => {
      const entry = (group ?? {}) as Record<string, unknown>;
      const list = Array.isArray(entry.hooks) ? entry.hooks : [];
      if (list.length === 0) warnings.push(`${file}: hooks.${event}[${g}] has no "hooks" array; ignored`);
      list.forEach((hook: unknown, h) => {
        const where = `${file}: hooks.${event}[${g}].hooks[${h}]`;
        if (hooks.length >= MAX_HOOKS_PER_FILE) return void warnings.push(`${where}: more than ${MAX_HOOKS_PER_FILE} hooks; ignored`);
        const parsed = parseHookDefinition({ event, matcher: entry.matcher, hook: (hook ?? {}) as Record<string, unknown> }, source, `${source}:${event}:${g}:${h}`);
        if (typeof parsed === "string") warnings.push(`${where}: ${parsed}; ignored`);
        else hooks.push(parsed);
      });
    });
  }
  return hooks;
}

/** Both files' hooks and whether all are off (see the header). */
export function hooksSettings(files: { host: SettingsDoc; hostFile: string; local: SettingsDoc; workspaceFile: string }, warnings: string[]): HooksSettings {
  return {
    user: hooksOf(files.hostFile, files.host, "user", warnings),
    project: hooksOf(files.workspaceFile, files.local, "project", warnings),
    disabled: files.host.disableAllHooks === true || files.local.disableAllHooks === true,
  };
}

/** Whether `toolName` matches `matcher` (see the header): at most length × length steps, both bounded. */
export function matchesTool(matcher: string | null, toolName: string): boolean {
  if (matcher === null) return true;
  return matcher.split("|").some((alternative) => wildcardMatch(alternative.trim(), toolName));
}

/** `*` matches any run of characters; everything else itself. Greedy with one backtrack point (no exponential cases). */
function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== "*" && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++;
      mark = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}
