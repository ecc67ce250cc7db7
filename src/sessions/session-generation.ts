/**
 * Text made about a session, outside its conversation: a recap (`POST /session/:id/recap`), a
 * title (the automatic one, `auto-title.ts`, and `POST /session/:id/generate {kind: "title"}`) and
 * a free generation (`POST /session/:id/generate {prompt}`). Nothing made here enters the
 * conversation, the prompt queue or the session's event stream.
 *
 * The input is the daemon's own journal, for every agent: a bounded digest (the session's first
 * request, then its newest entries, each cut to ENTRY_BYTES, DIGEST_BYTES in all). Where the
 * session's agent is the built-in one (profile `svc`) and the session is live, the digest goes to
 * its model through `svc/control/session/generate` (a stateless request with no tools, outside the
 * agent's conversation); anywhere else, or when that fails, the text is built locally from the
 * digest. Each answer says which (`source: "model" | "local"`). A model's text is untrusted: it is
 * cut to its bound, and a title is stripped of control and bidi characters (display-name.ts).
 */
import { AgentRequestError } from "../runtime/acp-channel.ts";
import type { Store } from "../store/store.ts";
import { titleFromAgent, truncateUtf16 } from "./display-name.ts";
import type { LiveSession } from "./live-session.ts";
import { transcriptEntries, type TranscriptEntry } from "./transcript-entries.ts";

/** The reference's bound on a generation prompt (UTF-8 bytes). */
export const MAX_GENERATE_PROMPT_BYTES = 32 * 1024;
/** Longest recap kept (UTF-16 units). */
export const MAX_RECAP_CHARS = 4000;
/** Longest generated text kept (UTF-16 units). */
export const MAX_GENERATED_CHARS = 16 * 1024;
/** Longest automatic title (UTF-16 units). */
export const MAX_TITLE_CHARS = 80;
/** The model request's whole time (the agent bounds its own request too). */
export const GENERATION_TIMEOUT_MS = 130_000;

const DIGEST_BYTES = 24 * 1024;
const ENTRY_BYTES = 2048;
/** What is read of the journal for a digest: its head (for the first request) and its newest records. */
const HEAD_RECORDS = 200;
const HEAD_BYTES = 256 * 1024;
const RECENT_RECORDS = 2000;
const RECENT_BYTES = 2 * 1024 * 1024;

export type GenerationSource = "model" | "local";
/** Why the text was made locally: the agent has no model path, the session is not live, or the model request failed. */
export type LocalReason = "agent_cannot" | "not_live" | "model_failed" | "model_empty";

export interface Digest {
  /** The first request of the session, when the journal has it. */
  readonly firstRequest: string | null;
  /** The newest entries read, oldest first (user, agent, tool and error entries only). */
  readonly entries: readonly TranscriptEntry[];
  /** Turns ended among the records read. */
  readonly turns: number;
}

const KEPT = new Set(["user", "agent", "tool", "error"]);
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
const cut = (text: string, max: number) => (text.length > max ? `${truncateUtf16(text, max - 1)}…` : text);

/** The digest of a session's journal (empty when the daemon keeps none). */
export function readDigest(store: Store | null, sessionId: string): Digest {
  if (store === null) return { firstRequest: null, entries: [], turns: 0 };
  const head = transcriptEntries(store.journalPage(sessionId, 0, HEAD_RECORDS, HEAD_BYTES).records.map((r) => JSON.parse(r.envelope) as unknown));
  const recent = transcriptEntries(store.recent(sessionId, RECENT_RECORDS, RECENT_BYTES).records.map((r) => JSON.parse(r.envelope) as unknown));
  const first = head.find((e) => e.kind === "user" && e.text.trim() !== "");
  return {
    firstRequest: first ? first.text : null,
    entries: recent.filter((e) => KEPT.has(e.kind) && e.text.trim() !== ""),
    turns: recent.filter((e) => e.kind === "turn_end" || e.kind === "error").length,
  };
}

const LABELS: Record<string, string> = { user: "User", agent: "Agent", tool: "Tool", error: "Error" };

/** The digest as transcript lines for a model: the first request, then the newest entries that fit DIGEST_BYTES. */
export function digestText(digest: Digest): string {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = digest.entries.length - 1; i >= 0; i--) {
    const e = digest.entries[i]!;
    const line = `${LABELS[e.kind]}: ${cut(e.text.trim(), ENTRY_BYTES / 2)}`;
    bytes += Buffer.byteLength(line) + 2;
    if (bytes > DIGEST_BYTES) break;
    lines.unshift(line);
  }
  const first = digest.firstRequest === null ? "" : `First request: ${cut(digest.firstRequest.trim(), ENTRY_BYTES / 2)}\n\n`;
  return `${first}${lines.join("\n\n")}`;
}

/** A title from the first request: its first line, whitespace collapsed, cut at a word near MAX_TITLE_CHARS; null when there is none. */
export function localTitle(digest: Digest): string | null {
  const source = digest.firstRequest ?? digest.entries.find((e) => e.kind === "user")?.text ?? "";
  const line = oneLine(source.split(/\r?\n/).find((l) => l.trim() !== "") ?? "");
  const safe = titleFromAgent(line);
  if (safe === "") return null;
  if (safe.length <= MAX_TITLE_CHARS) return safe;
  const head = truncateUtf16(safe, MAX_TITLE_CHARS - 1);
  const space = head.lastIndexOf(" ");
  return `${space > MAX_TITLE_CHARS / 2 ? head.slice(0, space) : head}…`;
}

/** A recap from the digest alone: the turns, the first and latest requests, the latest answer and the tools used lately. */
export function localRecap(digest: Digest): string | null {
  const users = digest.entries.filter((e) => e.kind === "user");
  const agents = digest.entries.filter((e) => e.kind === "agent");
  if (digest.firstRequest === null && users.length === 0) return null;
  const parts: string[] = [];
  if (digest.turns > 0) parts.push(`${digest.turns} turn${digest.turns === 1 ? "" : "s"} so far.`);
  if (digest.firstRequest !== null) parts.push(`First request: "${cut(oneLine(digest.firstRequest), 300)}".`);
  const latest = users[users.length - 1];
  if (latest && oneLine(latest.text) !== oneLine(digest.firstRequest ?? "")) parts.push(`Latest request: "${cut(oneLine(latest.text), 300)}".`);
  const answer = agents[agents.length - 1];
  if (answer) parts.push(`Latest answer: "${cut(oneLine(answer.text), 1200)}".`);
  const tools = [...new Set(digest.entries.filter((e) => e.kind === "tool").map((e) => oneLine(e.text).replace(/ \((?:pending|in_progress|completed|failed)\)$/, "")))].slice(-8);
  if (tools.length > 0) parts.push(`Recent tool calls: ${tools.map((t) => cut(t, 80)).join("; ")}.`);
  const failures = digest.entries.filter((e) => e.kind === "error").length;
  if (failures > 0) parts.push(`${failures} turn${failures === 1 ? "" : "s"} failed.`);
  return cut(parts.join(" "), MAX_RECAP_CHARS);
}

export interface ModelAnswer {
  readonly text: string;
  readonly model: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/**
 * One stateless request to the session's model through its built-in agent, or why not: a reason
 * when the session's agent has no such path (`agent_cannot`) or the request failed (`model_failed`).
 */
export async function askModel(session: LiveSession | null, prompt: string, system: string | undefined, maxOutputTokens: number): Promise<ModelAnswer | { reason: LocalReason; message?: string }> {
  if (session === null || session.isEnded) return { reason: "not_live" };
  const live = session.runtime.current();
  if (live === null || live.profile.extensionPrefix !== "svc") return { reason: "agent_cannot" };
  try {
    const answer = await live.channel.request<{ text?: unknown; model?: unknown; inputTokens?: unknown; outputTokens?: unknown } | null>(
      "svc/control/session/generate",
      { sessionId: session.agentSessionId, prompt, ...(system === undefined ? {} : { system }), maxOutputTokens },
      { timeoutMs: GENERATION_TIMEOUT_MS },
    );
    if (typeof answer?.text !== "string") return { reason: "model_failed", message: "the agent answered in an unknown shape" };
    if (answer.text.trim() === "") return { reason: "model_empty" };
    const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined);
    const inputTokens = count(answer.inputTokens);
    const outputTokens = count(answer.outputTokens);
    return {
      text: truncateUtf16(answer.text.toWellFormed(), MAX_GENERATED_CHARS),
      model: typeof answer.model === "string" ? truncateUtf16(answer.model, 256) : "unknown",
      ...(inputTokens === undefined ? {} : { inputTokens }),
      ...(outputTokens === undefined ? {} : { outputTokens }),
    };
  } catch (err) {
    return { reason: "model_failed", message: err instanceof AgentRequestError || err instanceof Error ? truncateUtf16(err.message, 256) : "the request failed" };
  }
}

const RECAP_SYSTEM = [
  "You write a recap of a coding session between a user and an AI coding agent, for someone coming back to it.",
  "In a few short sentences: what the user is trying to do, what has been done (files, commands, decisions), and where it stands now.",
  "Only state what the transcript shows. Answer with the recap only, no heading.",
].join("\n");

const TITLE_SYSTEM = [
  "You name a coding session from its start. Answer with a title of at most 8 words that says what the user wants done.",
  "No quotes, no trailing punctuation, no preamble: the title only.",
].join("\n");

/** A session's recap: its model's (built-in agent, live) or the local one. */
export async function recap(session: LiveSession | null, digest: Digest): Promise<{ recap: string | null; source: GenerationSource; model?: string; reason?: LocalReason }> {
  if (digest.firstRequest === null && digest.entries.length === 0) return { recap: null, source: "local" };
  const asked = await askModel(session, `The session so far:\n\n${digestText(digest)}\n\nWrite the recap.`, RECAP_SYSTEM, 1024);
  if ("text" in asked) return { recap: cut(asked.text.trim(), MAX_RECAP_CHARS), source: "model", model: asked.model };
  return { recap: localRecap(digest), source: "local", reason: asked.reason };
}

/** A session's title: its model's (built-in agent, live) or the local one; null when the session has said nothing yet. */
export async function title(session: LiveSession | null, digest: Digest): Promise<{ title: string | null; source: GenerationSource; model?: string; reason?: LocalReason }> {
  if (digest.firstRequest === null) return { title: null, source: "local" };
  const first = digest.entries.find((e) => e.kind === "agent");
  const start = `User: ${cut(digest.firstRequest.trim(), 4000)}${first ? `\n\nAgent: ${cut(first.text.trim(), 2000)}` : ""}`;
  const asked = await askModel(session, `The session starts:\n\n${start}\n\nWrite the title.`, TITLE_SYSTEM, 64);
  if ("text" in asked) {
    const line = asked.text.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
    const made = titleFromAgent(oneLine(line).replace(/^["'`*#\s]+|["'`*.\s]+$/g, ""));
    if (made !== "") return { title: cut(made, MAX_TITLE_CHARS), source: "model", model: asked.model };
    return { title: localTitle(digest), source: "local", reason: "model_empty" };
  }
  return { title: localTitle(digest), source: "local", reason: asked.reason };
}
