/**
 * Branching a session (`POST /session/:id/branch`): a new session, with its own id and journal,
 * that starts from the parent's conversation as it stood after one of its turns (default the
 * latest), linked to its parent in the catalog (`parentSessionId`, `parentPromptId`). The parent is
 * left as it was. Files are neither copied nor changed: the branch works in the same workspace.
 *
 * Order: refuse while the parent is busy (409 `branch_while_prompt_active`, as the reference: a
 * prompt running or queued, or a permission pending); find the turn among the journal's turns
 * (`turn-index.ts`; 400 `branch_point_invalid` for a prompt id it lacks or an index out of range);
 * then open the branch, counted against `--max-sessions` like a create:
 * - the agent's own fork (`session/fork`, when its capabilities advertise `sessionCapabilities.fork`)
 *   at the latest turn; the built-in agent also at an earlier one (`_meta["svc/fork"]
 *   .beforePromptId`, `builtin-agent/fork.ts`), since no other agent is known to cut a fork;
 * - else a fresh `session/new` seeded, as `load` seeds (`restore-seed.ts`), with the parent's
 *   journal up to the end of the turn.
 * The parent then publishes `session_branched`. The branch's journal starts empty: the parent's
 * events stay in the parent's journal.
 */
import { DaemonError } from "../errors/daemon-error.ts";
import { branchAncestry } from "./branch-ancestry.ts";
import { titleFromAgent, truncateUtf16 } from "./display-name.ts";
import type { LiveSession } from "./live-session.ts";
import { restoreSeed } from "./restore-seed.ts";
import type { SessionManager } from "./session-manager.ts";
import { turnStarts } from "./turn-index.ts";

export interface BranchRequest {
  /** The parent's last turn the branch holds, by prompt id. */
  readonly promptId?: string;
  /** The same by ordinal (0 = the first turn), as `GET /session/:id/turn-index` numbers them. */
  readonly turnIndex?: number;
  /** The branch's display name (default: the parent's, marked as a branch). */
  readonly name?: string;
}

export interface BranchResult {
  sessionId: string;
  workspaceCwd: string;
  clientId: string;
  createdAt: string;
  displayName: string;
  parentSessionId: string;
  /** The parent's last turn the branch holds; absent when the parent had none. */
  parentPromptId?: string;
  turnIndex?: number;
  /** `fork`: the agent's own `session/fork`; `seeded`: a new agent session given the conversation as text. */
  branchedBy: "fork" | "seeded";
  forkedFrom: { sessionId: string; displayName: string };
}

/** The longest display name a branch is given (the reference's cut). */
export const MAX_BRANCH_NAME_CHARS = 200;

const busy = (sessionId: string) => new DaemonError(409, "branch_while_prompt_active", `Cannot branch session ${sessionId}: a prompt is running or queued, or a permission is pending`, { sessionId });
const invalidPoint = (message: string, extra: Record<string, unknown>) => new DaemonError(400, "branch_point_invalid", message, extra);

/**
 * `name` as a display name (`display-name.ts`: control, bidi and separator characters removed,
 * well-formed), trimmed and cut to MAX_BRANCH_NAME_CHARS UTF-16 units on a character boundary;
 * undefined when nothing is left.
 */
export function branchName(name: string | undefined): string | undefined {
  const clean = name === undefined ? "" : truncateUtf16(titleFromAgent(name), MAX_BRANCH_NAME_CHARS).trim();
  return clean ? clean : undefined;
}

const originator = (clientId: string | null) => (clientId === null ? {} : { originatorClientId: clientId });

export class SessionBrancher {
  constructor(private readonly sessions: SessionManager) {}

  async branch(parent: LiveSession, request: BranchRequest, originatorClientId: string | null): Promise<BranchResult> {
    if (request.promptId !== undefined && request.turnIndex !== undefined) throw invalidPoint("Give the turn by promptId or by turnIndex, not both", {});
    if (parent.busy) throw busy(parent.id);
    const store = this.sessions.store;
    const turns = store === null ? [] : turnStarts(store, parent.id);
    let at = turns.length - 1;
    if (request.promptId !== undefined) {
      at = turns.findIndex((t) => t.promptId === request.promptId);
      if (at < 0) throw invalidPoint("The session has no turn with this prompt id", { promptId: request.promptId });
    } else if (request.turnIndex !== undefined) {
      if (request.turnIndex >= turns.length) throw invalidPoint(`turnIndex is out of range: the session has ${turns.length} turn(s)`, { turnIndex: request.turnIndex, totalTurns: turns.length });
      at = request.turnIndex;
    }
    const next = turns[at + 1] ?? null;
    const live = parent.runtime.current();
    const canFork = live !== null && typeof live.channel.init.agentCapabilities?.sessionCapabilities?.fork === "object" && live.channel.init.agentCapabilities.sessionCapabilities.fork !== null;
    const builtIn = live?.profile.extensionPrefix === "svc";
    const link = { parentSessionId: parent.id, parentPromptId: at >= 0 ? turns[at]!.promptId : null };
    const forked = canFork && (next === null || builtIn);
    const session = await this.sessions.branch(
      parent,
      forked ? { fork: next === null ? {} : { meta: { "svc/fork": { beforePromptId: next.promptId } } } } : { seed: restoreSeed(store, parent.id, next?.position ?? null, branchAncestry(store, parent.id)) },
      link,
    );
    const parentName = parent.metadata.displayName ?? parent.id.slice(0, 8);
    const displayName = branchName(request.name) ?? branchName(`${parentName} (branch)`) ?? "(branch)";
    session.metadata.displayName = displayName;
    session.metadata.titleSource = "manual";
    session.publish("session_metadata_updated", { sessionId: session.id, displayName, titleSource: "manual" });
    parent.publish("session_branched", {
      sessionId: parent.id,
      sourceSessionId: parent.id,
      newSessionId: session.id,
      displayName,
      ...(link.parentPromptId === null ? {} : { parentPromptId: link.parentPromptId }),
    }, originator(originatorClientId));
    const clientId = session.clients.attach(null);
    return {
      sessionId: session.id,
      workspaceCwd: session.workspaceCwd,
      clientId,
      createdAt: new Date(session.createdAt).toISOString(),
      displayName,
      parentSessionId: parent.id,
      ...(link.parentPromptId === null ? {} : { parentPromptId: link.parentPromptId, turnIndex: at }),
      branchedBy: forked ? "fork" : "seeded",
      forkedFrom: { sessionId: parent.id, displayName: parentName },
    };
  }
}
