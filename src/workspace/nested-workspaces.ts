/**
 * Containment between served workspaces: a workspace registered inside another belongs to itself,
 * so a path of the outer one that lands in the inner one is an escape. Lexically inside it:
 * `path_outside_workspace`; through a symbolic link: `symlink_escape`. A link to a workspace outside
 * the root needs no check here: the root's own containment refuses it already.
 */
import { realpath } from "node:fs/promises";
import { outsideWorkspace, symlinkEscape } from "./fs-errors.ts";
import { absoluteOf, isInside, parentOf } from "./paths.ts";

/** Real location of `rel`: its deepest existing prefix resolved, with the rest appended. */
async function realLocation(root: string, rel: string): Promise<string> {
  let rest = "";
  for (let prefix = rel; ; prefix = parentOf(prefix)) {
    const real = await realpath(absoluteOf(root, prefix)).catch(() => null);
    if (real !== null) return rest === "" ? real : `${real}/${rest}`;
    if (prefix === "") return absoluteOf(root, rel);
    const name = prefix.slice(parentOf(prefix).length === 0 ? 0 : parentOf(prefix).length + 1);
    rest = rest === "" ? name : `${name}/${rest}`;
  }
}

/** Refuses workspace-relative `rel` of `root` when it lies in one of `nested` (other workspaces' roots inside `root`). */
export async function refuseNested(root: string, rel: string, nested: readonly string[]): Promise<void> {
  if (nested.length === 0) return;
  const lexical = absoluteOf(root, rel);
  if (nested.some((inner) => isInside(inner, lexical))) throw outsideWorkspace("it lies in another workspace this daemon serves");
  const real = await realLocation(root, rel);
  if (nested.some((inner) => isInside(inner, real))) throw symlinkEscape(rel);
}
