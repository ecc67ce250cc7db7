/**
 * The slash commands the built-in agent offers: none yet. One list for both places that report
 * it: the `available_commands_update` published after session/new, load and resume, and
 * `svc/status/session/supported_commands`.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";

export const AVAILABLE_COMMANDS: readonly acp.AvailableCommand[] = [];
