/** The envelope of `GET /workspace/env` and `/workspace/preflight`, and the status cell every workspace status route shares (spec "Status cell"). */
import { t } from "elysia";
import { openObject } from "./open-object.ts";

export const StatusCell = openObject(
  {
    kind: t.String(),
    status: t.Union([t.Literal("ok"), t.Literal("warning"), t.Literal("error"), t.Literal("disabled"), t.Literal("not_started"), t.Literal("unknown")]),
    error: t.Optional(t.String()),
    errorKind: t.Optional(t.String()),
    hint: t.Optional(t.String()),
  },
  { description: "One check; further members depend on `kind`" },
);

export const WorkspaceCells = t.Object({
  v: t.Literal(1),
  workspaceCwd: t.String(),
  initialized: t.Boolean(),
  acpChannelLive: t.Boolean(),
  cells: t.Array(StatusCell),
  errors: t.Optional(t.Array(StatusCell, { description: "why the agent's cells are missing (it could not be reached); omitted on success" })),
});
