/**
 * What the permission dialog shows of a request, derived from the request's tool call, never from
 * the agent's title or option names alone: the command (execute tools: `rawInput.command`, else
 * the call's text content), the paths (`locations`), the diffs (`content` of type diff), the raw
 * input as pretty JSON, the order and default of the options, and what an "always" option widens.
 * Pure.
 *
 * Bounds (what the dialog renders whatever the agent sent): the title at `MAX_TITLE_CHARS`
 * characters, the command and each text block at `MAX_SHOWN_CHARS`, the input JSON at `MAX_INPUT_CHARS`, `MAX_SHOWN_PATHS`
 * paths and `MAX_SHOWN_DIFFS` diffs; the rest is counted, and the dialog says how much it left out
 * (each diff is bounded again by `diff-lines.ts`).
 */
import type { DiffContent, PendingPermission, PermissionOption } from "./transcript-model.ts";

export const MAX_TITLE_CHARS = 1024;
export const MAX_SHOWN_CHARS = 16 * 1024;
export const MAX_INPUT_CHARS = 8 * 1024;
export const MAX_SHOWN_PATHS = 20;
export const MAX_SHOWN_DIFFS = 5;
/** Characters of the command quoted in an "always" option's scope line. */
export const MAX_SCOPE_CHARS = 200;

/** A text cut at a bound: `omitted` characters past it are not in `text`. */
export interface Bounded {
  text: string;
  omitted: number;
}

export interface PermissionDetails {
  title: Bounded;
  /** The command an execute tool would run, when the request says. */
  command: Bounded | null;
  /** `path` or `path:line`, as sent (the dialog shortens workspace paths). */
  paths: { path: string; line?: number }[];
  omittedPaths: number;
  diffs: DiffContent[];
  omittedDiffs: number;
  /** Text content that is not the command itself. */
  texts: Bounded[];
  /** `rawInput` as pretty JSON (a string input as is); null when the agent sent none. */
  input: Bounded | null;
}

export function bounded(text: string, max: number): Bounded {
  if (text.length <= max) return { text, omitted: 0 };
  // Never end on half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return { text: text.slice(0, end), omitted: text.length - end };
}

/** POSIX shell quoting for one argument, only where it needs it. */
export const shellArg = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** `rawInput.command` as one line: a string, or an argv array joined with quoting. */
function commandOf(rawInput: unknown): string | null {
  if (rawInput === null || typeof rawInput !== "object") return null;
  const command = (rawInput as Record<string, unknown>).command;
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.length > 0 && command.every((a) => typeof a === "string")) return command.map(shellArg).join(" ");
  return null;
}

/** `rawInput` (parsed from the event's JSON, so always serialisable) as pretty JSON. */
function inputJson(rawInput: unknown): string | null {
  if (rawInput === undefined || rawInput === null) return null;
  return typeof rawInput === "string" ? rawInput : JSON.stringify(rawInput, null, 2);
}

export function permissionDetails(p: PendingPermission): PermissionDetails {
  const texts = p.content.flatMap((c) => (c.type === "text" ? [c.text] : []));
  const fromInput = p.toolKind === "execute" ? commandOf(p.rawInput) : null;
  // Without `rawInput.command`, an execute call's text content is its command.
  const fromContent = p.toolKind === "execute" && fromInput === null && texts.length > 0 ? texts.join("\n").replace(/^\$ /, "") : null;
  const command = fromInput ?? fromContent;
  // The built-in agent previews a command as `$ <command>`: the command section shows it already.
  const echoes = (t: string) => command !== null && t.trim().replace(/^\$ /, "") === command.trim();
  const others = fromContent !== null ? [] : texts.filter((t) => !echoes(t));
  const diffs = p.content.flatMap((c) => (c.type === "diff" ? [c] : []));
  const input = inputJson(p.rawInput);
  return {
    title: bounded(p.title, MAX_TITLE_CHARS),
    command: command === null ? null : bounded(command, MAX_SHOWN_CHARS),
    paths: p.locations.slice(0, MAX_SHOWN_PATHS),
    omittedPaths: Math.max(0, p.locations.length - MAX_SHOWN_PATHS),
    diffs: diffs.slice(0, MAX_SHOWN_DIFFS),
    omittedDiffs: Math.max(0, diffs.length - MAX_SHOWN_DIFFS),
    texts: others.map((t) => bounded(t, MAX_SHOWN_CHARS)),
    input: input === null ? null : bounded(input, MAX_INPUT_CHARS),
  };
}

/** How permissive an option is, least first: refusals, one approval, unknown kinds, standing approvals. */
function rank(o: PermissionOption): number {
  switch (o.kind) {
    case "reject_once":
      return 0;
    case "reject_always":
      return 1;
    case "allow_once":
      return 2;
    case "allow_always":
      return 4;
    default:
      return 3;
  }
}

/** The options, least permissive first (the agent's order within a kind). */
export const orderedOptions = (options: PermissionOption[]): PermissionOption[] => options.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i).map(({ o }) => o);

/** The option the dialog focuses: a one-time refusal, else a standing one; none when nothing refuses. */
export const safestOption = (options: PermissionOption[]): PermissionOption | undefined =>
  options.find((o) => o.kind === "reject_once") ?? options.find((o) => o.kind === "reject_always");

/**
 * What an "always" option widens, said from the request rather than the option's name: the exact
 * command for an execute tool, else every call of the tool (the agent's tool name, else its kind).
 */
export function widening(p: PendingPermission, details: PermissionDetails): string {
  const scope =
    p.toolKind === "execute" && details.command
      ? `the command ${quote(details.command.text)}`
      : p.toolName
        ? `every ${p.toolName} call`
        : p.toolKind
          ? `every ${p.toolKind} call`
          : `calls like ${quote(p.title)}`;
  return `for the rest of this session: ${scope}`;
}

/** `text` quoted on one line, blank runs and line breaks as single spaces (nothing hides past the cut), bounded. */
function quote(text: string): string {
  const { text: cut, omitted } = bounded(text.replace(/\s+/g, " ").trim(), MAX_SCOPE_CHARS);
  return `“${cut}${omitted > 0 ? "…" : ""}”`;
}
