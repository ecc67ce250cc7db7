/**
 * The prompt request body (OpenAPI is generated from it): `prompt`, a non-empty array of ACP content
 * blocks (text, image, audio, resource_link, resource), and an optional `deadlineMs`. Members a
 * block type does not define are dropped before the prompt is queued; the free-form `_meta` and
 * `annotations` members pass through (their nesting is bounded by the queue, see
 * `sessions/prompt-content.ts`). A malformed prompt answers the reference's `{error}` body.
 */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { DaemonError } from "../../errors/daemon-error.ts";
import { wholeNumber } from "./session-params.ts";

/** Content blocks per prompt. */
export const MAX_BLOCKS = 1000;
export const BAD_PROMPT = "`prompt` is required and must be a non-empty array of content blocks";

const badPromptBody = () => new DaemonError(400, null, BAD_PROMPT).body();

const nullable = <T extends Parameters<typeof t.Optional>[0]>(schema: T) => t.Optional(t.Union([schema, t.Null()]));
const Meta = nullable(t.Record(t.String(), t.Unknown()));
const Annotations = nullable(
  t.Object({
    audience: nullable(t.Array(t.Union([t.Literal("assistant"), t.Literal("user")]))),
    lastModified: nullable(t.String()),
    priority: nullable(t.Number()),
    _meta: Meta,
  }),
);
const common = { annotations: Annotations, _meta: Meta };

const TextBlock = t.Object({ type: t.Literal("text"), text: t.String(), ...common });
const ImageBlock = t.Object({ type: t.Literal("image"), data: t.String(), mimeType: t.String(), uri: nullable(t.String()), ...common });
const AudioBlock = t.Object({ type: t.Literal("audio"), data: t.String(), mimeType: t.String(), ...common });
const ResourceLinkBlock = t.Object({
  type: t.Literal("resource_link"),
  uri: t.String(),
  name: t.String(),
  title: nullable(t.String()),
  description: nullable(t.String()),
  mimeType: nullable(t.String()),
  size: nullable(wholeNumber({ minimum: 0 })),
  ...common,
});
const ResourceContents = t.Union([
  t.Object({ uri: t.String(), text: t.String(), mimeType: nullable(t.String()), _meta: Meta }),
  t.Object({ uri: t.String(), blob: t.String(), mimeType: nullable(t.String()), _meta: Meta }),
]);
const ResourceBlock = t.Object({ type: t.Literal("resource"), resource: ResourceContents, ...common });

export const ContentBlock = t.Union([TextBlock, ImageBlock, AudioBlock, ResourceLinkBlock, ResourceBlock], { error: badPromptBody });

export const PromptBody = t.Object(
  {
    prompt: t.Array(ContentBlock, { minItems: 1, maxItems: MAX_BLOCKS, error: badPromptBody }),
    deadlineMs: t.Optional(
      wholeNumber({
        minimum: 1,
        description: "shortens the daemon's prompt deadline for this prompt (ignored without one)",
        error: () => new DaemonError(400, "invalid_deadline", "`deadlineMs` must be a positive whole number").body(),
      }),
    ),
  },
  { error: badPromptBody },
);

export const PromptAccepted = t.Object({ promptId: t.String(), lastEventId: Type.Integer(), eventEpoch: t.String() });
