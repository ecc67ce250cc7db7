/**
 * A worktree session's name (`POST /session` `worktree.slug`), untrusted: it becomes a folder name
 * under `.qwen/worktrees/` and part of a branch name, so it is held to the reference's rules (at
 * most 64 characters of `[A-Za-z0-9._-]`, no `..`, not starting with `.` or `-`) and to its
 * reserved shapes (`pr-<n>` for PR worktrees, `agent-…` for agents' own). Pure.
 */
import { randomBytes, randomInt } from "node:crypto";

export const MAX_SLUG_LENGTH = 64;

/** Why `slug` cannot name a worktree, or null when it can. */
export function slugProblem(slug: string): string | null {
  if (slug.length === 0) return "Worktree name must be a non-empty string.";
  if (slug.length > MAX_SLUG_LENGTH) return `Worktree name must be at most ${MAX_SLUG_LENGTH} characters.`;
  if (!/^[a-zA-Z0-9._-]+$/.test(slug)) return "Worktree name may only contain letters, digits, dots, underscores, and hyphens.";
  if (slug.includes("..") || slug.startsWith(".") || slug.startsWith("-")) return 'Worktree name must not start with "." or "-" or contain "..".';
  if (/^pr-[1-9]\d{0,8}$/.test(slug)) return 'Worktree name must not look like "pr-<number>": that shape is reserved for PR-backed worktrees.';
  if (slug.startsWith("agent-")) return 'Worktree name must not start with "agent-": that prefix is reserved for agents\' own worktrees.';
  if (slug.toLowerCase().endsWith(".lock")) return 'Worktree name must not end with ".lock".';
  return null;
}

const ADJECTIVES = ["swift", "bright", "calm", "keen", "bold", "eager", "kind", "quick"];
const NOUNS = ["fox", "owl", "elm", "oak", "ray", "sky", "leaf", "pine"];

/** A fresh name for a worktree asked for without one: `{adjective}-{noun}-{6 hex}`, as the reference makes them. */
export function autoSlug(): string {
  return `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${NOUNS[randomInt(NOUNS.length)]}-${randomBytes(3).toString("hex")}`;
}

/** The branch a worktree named `slug` is on. */
export const branchForSlug = (slug: string) => `worktree-${slug}`;
