/**
 * What prompt content the queue admits (pure). A prompt's blocks are published (the echo), listed
 * (`pending-prompts`) and sent to the agent after its 202, so admission first makes sure they can
 * be: JSON serialisation recurses once per nesting level, and a block nested deep enough overflows
 * the stack wherever it is serialised. Free-form members (`_meta`, `annotations`, fields an agent
 * might understand) may nest, but no deeper than MAX_CONTENT_DEPTH; deeper content is refused with
 * a 400 before anything is queued.
 */
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { DaemonError } from "../errors/daemon-error.ts";

/** Nesting levels allowed inside one content block (the block object itself is level 1). */
export const MAX_CONTENT_DEPTH = 32;

/** Whether `value` nests objects/arrays no deeper than `limit` levels. Iterative: no recursion of its own. */
export function nestsWithin(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth > limit) return false;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return true;
}

/** Throws the 400 for content nested past MAX_CONTENT_DEPTH. */
export function checkPublishable(content: readonly acp.ContentBlock[]): void {
  for (const block of content)
    if (!nestsWithin(block, MAX_CONTENT_DEPTH))
      throw new DaemonError(400, null, `\`prompt\` content blocks must not nest deeper than ${MAX_CONTENT_DEPTH} levels`);
}
