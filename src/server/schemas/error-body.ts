/**
 * The two error bodies of the API (spec "Error bodies"): `{error, code?, …}` for daemon errors and
 * `{errorKind, error, hint?, status}` for filesystem errors. Both are additive: clients branch on the
 * HTTP status and the stable `code` or `errorKind`, and a body may carry more fields (`sessionId`,
 * `field`, `retryAfterMs`, …), so the daemon body declares extra members as allowed.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";

export const ErrorBody = t.Object(
  {
    error: t.String({ description: "what went wrong, for people" }),
    code: t.Optional(
      t.Union([t.String({ description: "stable machine code, when the error has one" }), Type.Integer({ description: "the agent's JSON-RPC error code, forwarded with its `data` (spec Errors: 5xx)" })]),
    ),
    retryable: t.Optional(t.Boolean({ description: "whether retrying the same request can help" })),
    hint: t.Optional(t.String({ description: "what to do about it" })),
    restorable: t.Optional(
      t.Literal(true, {
        description: "on 404 `session_not_found` from a route that needs a live session: the session is persisted but not live, and `POST /session/:id/load` brings it back (absent: deleted, unknown, archived, or the catalog cannot be read)",
      }),
    ),
    persistedState: t.Optional(
      t.Union([t.Literal("closed"), t.Literal("restorable"), t.Literal("interrupted")], {
        description:
          "with `restorable`: how the session ended, as the session lists say it: `closed` by a client (a client that was away should not bring it back unasked), `restorable` (the daemon ended it: a shutdown, the idle reaper, its workspace removed or its runtime stopped), `interrupted` (its daemon or agent went away)",
      }),
    ),
  },
  { additionalProperties: true, description: "A daemon error; further members depend on the code" },
);

export const FsErrorBody = t.Object(
  {
    errorKind: t.String({ description: "stable machine kind (`path_not_found`, `hash_mismatch`, …)" }),
    error: t.String(),
    hint: t.Optional(t.String()),
    status: Type.Integer({ description: "the HTTP status, repeated" }),
  },
  { description: "A filesystem error" },
);
