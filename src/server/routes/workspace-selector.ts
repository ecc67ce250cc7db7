/**
 * The `:workspace` of the workspace-qualified routes (`/workspaces/:workspace/...`): a workspace id
 * (16 hex digits) or an absolute path, URL-decoded. This daemon serves one workspace, so a selector
 * names it or is refused: 400 `invalid_workspace` when it is neither an id nor an absolute path,
 * 404 `workspace_not_found` when it names another.
 */
import { DaemonError } from "../../errors/daemon-error.ts";
import { workspaceId } from "../../workspace/workspace-id.ts";

/** The workspace `selector` names (`primary`, the one this daemon has), or the error above. */
export function resolveWorkspace(primary: string, selector: string, param = ":workspace"): string {
  if (selector === primary || selector === workspaceId(primary)) return primary;
  if (!/^[0-9a-f]{16}$/.test(selector) && !selector.startsWith("/")) throw new DaemonError(400, "invalid_workspace", `\`${param}\` must decode to a workspace id or absolute path`);
  throw new DaemonError(404, "workspace_not_found", "No such workspace is registered");
}
