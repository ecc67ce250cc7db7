/** Shapes of `GET|POST /workspace/memory` (the reference daemon's, observed). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";

const MemoryScope = t.Union([t.Literal("workspace"), t.Literal("global")], { description: "`workspace`: the project's files; `global`: the user's, in the data dir" });

const MemoryFileEntry = t.Object(
  { kind: t.Literal("memory_file"), path: t.String({ description: "Absolute path where the file was found" }), scope: MemoryScope, bytes: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);

const MemoryProblem = t.Object(
  {
    kind: t.Literal("memory_file"),
    status: t.Union([t.Literal("error"), t.Literal("disabled")]),
    error: t.String(),
    errorKind: t.String({ description: "`untrusted_workspace` (project files not read), `symlink_escape`, `stat_failed`" }),
    hint: t.Optional(t.String()),
  },
  { additionalProperties: false },
);

export const MemoryStatus = t.Object(
  {
    v: t.Literal(1),
    workspaceCwd: t.String(),
    initialized: t.Boolean({ description: "false when no instruction file was found (and nothing went wrong)" }),
    files: t.Array(MemoryFileEntry, { description: "In the order the built-in agent's system prompt takes them: the user's, then the project's from the repository root down to the workspace" }),
    totalBytes: Type.Integer({ minimum: 0 }),
    fileCount: Type.Integer({ minimum: 0 }),
    ruleCount: Type.Integer({ minimum: 0, description: "Always 0 (svc has no rule files)" }),
    errors: t.Optional(t.Array(MemoryProblem)),
  },
  { additionalProperties: false },
);

export const MemoryWriteBody = t.Object(
  {
    scope: MemoryScope,
    mode: t.Optional(t.Union([t.Literal("append"), t.Literal("replace")], { description: "default `append`: under the file's \"## Added Memories\" section" })),
    content: t.String({ description: "At most 1 MiB (UTF-8)" }),
  },
  { additionalProperties: false },
);

export const MemoryWriteAnswer = t.Object(
  {
    ok: t.Literal(true),
    filePath: t.String(),
    bytesWritten: Type.Integer({ minimum: 0, description: "Bytes of the file as written (0 when unchanged)" }),
    mode: t.Union([t.Literal("append"), t.Literal("replace")]),
    changed: t.Boolean(),
  },
  { additionalProperties: false },
);
