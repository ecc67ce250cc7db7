/**
 * The `X-Svc-Client-Id` request header of the session routes: absent (an anonymous client) or an id
 * of the shape `POST /session` mints. A malformed one is 400 `invalid_client_id` before the handler
 * runs; whether the id is registered on the session is the handler's question (also 400
 * `invalid_client_id`, with the session and id named).
 */
import { t } from "elysia";
import { CLIENT_ID_HEADER, CLIENT_ID_SHAPE, malformedClientId } from "../../sessions/client-ids.ts";

export const ClientIdHeaders = t.Object(
  {
    [CLIENT_ID_HEADER]: t.Optional(
      t.String({
        pattern: CLIENT_ID_SHAPE.source,
        description: "the client id `POST /session` returned; absent for an anonymous client",
        error: () => malformedClientId().body(),
      }),
    ),
  },
  { additionalProperties: true },
);
