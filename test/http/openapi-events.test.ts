/**
 * The event stream in `/openapi.json`: the envelope and each event type's data are named schemas
 * under `components.schemas`, and `GET /session/:id/events` declares what it reads and every status
 * it answers, its 200 as `text/event-stream` of `SseEvent` frames. (That the frames the daemon
 * sends match these schemas is checked on every stream the suites open: `helpers/contract.ts`.)
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { EVENT_DATA, eventFrameName, eventSchemaName } from "../../src/events/event-schemas.ts";
import { startDaemon } from "../helpers/daemon.ts";

interface Doc {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
}

let doc: Doc;
beforeAll(async () => {
  await using d = await startDaemon();
  const res = await d.fetch("/openapi.json");
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
});

const EVENT_TYPES = Object.keys(EVENT_DATA);

describe("components.schemas", () => {
  test("names the envelope, the frame union and one data schema per event type", () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).toContain("SseEnvelope");
    expect(names).toContain("SseEvent");
    for (const type of EVENT_TYPES) expect(names).toContain(eventSchemaName(type));
    expect(eventSchemaName("turn_complete")).toBe("TurnCompleteEvent");
  });

  test("the envelope has the frame's fields, `v` fixed at 1", () => {
    const envelope = doc.components.schemas.SseEnvelope;
    expect(Object.keys(envelope.properties).sort()).toEqual(["_meta", "data", "id", "originatorClientId", "promptId", "type", "v"]);
    expect(envelope.required.sort()).toEqual(["_meta", "data", "type", "v"]);
    expect(envelope.properties.v.const).toBe(1);
    expect(envelope.properties._meta.required).toEqual(["serverTimestamp"]);
  });

  test("SseEvent is a oneOf of named frames, one per event type, discriminated by `type` with a mapping; each frame's data by reference", () => {
    const union = doc.components.schemas.SseEvent;
    const refs = (union.oneOf as { $ref: string }[]).map((v) => v.$ref);
    expect(refs.sort()).toEqual(EVENT_TYPES.map((type) => `#/components/schemas/${eventFrameName(type)}`).sort());
    expect(union.discriminator).toEqual({
      propertyName: "type",
      mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, `#/components/schemas/${eventFrameName(type)}`])),
    });
    expect(eventFrameName("turn_complete")).toBe("TurnCompleteFrame");
    for (const type of EVENT_TYPES) {
      const frame = doc.components.schemas[eventFrameName(type)];
      expect(frame.properties.type.const).toBe(type);
      expect(frame.properties.data).toEqual({ $ref: `#/components/schemas/${eventSchemaName(type)}` });
    }
  });

  test("turn_error's errorKind is a closed set", () => {
    const { errorKind } = doc.components.schemas.TurnErrorEvent.properties;
    expect(errorKind.enum.sort()).toEqual(["auth_env_error", "blocked_egress", "init_timeout", "model_stream_interrupted", "output_too_large", "prompt_deadline_exceeded", "protocol_error"]);
  });

  test("events the daemon builds are closed objects (a field published without its schema fails the contract)", () => {
    for (const name of ["TurnCompleteEvent", "TurnErrorEvent", "SlowClientWarningEvent", "StateResyncRequiredEvent", "PermissionResolvedEvent", "SessionDiedEvent", "AgentOutputRejectedEvent"])
      expect(doc.components.schemas[name].additionalProperties).toBe(false);
  });
});

describe("GET /session/{id}/events", () => {
  const op = () => doc.paths["/session/{id}/events"]!.get;
  const parameter = (where: string, name: string) => (op().parameters as any[]).find((p) => p.in === where && p.name === name);

  test("declares its path parameter, the maxQueued query and the headers it reads", () => {
    expect(parameter("path", "id")).toMatchObject({ required: true, schema: { type: "string" } });
    expect(parameter("query", "maxQueued")).toMatchObject({ required: false, schema: { type: "string" } });
    for (const header of ["last-event-id", "x-svc-event-epoch", "x-svc-client-id", "accept"]) expect(parameter("header", header)).toMatchObject({ required: false });
  });

  test("its 200 is text/event-stream of SseEvent frames, with the stream's headers", () => {
    const ok = op().responses["200"];
    expect(Object.keys(ok.content)).toEqual(["text/event-stream"]);
    expect(ok.content["text/event-stream"].schema).toEqual({ $ref: "#/components/schemas/SseEvent" });
    expect(Object.keys(ok.headers)).toEqual(expect.arrayContaining(["X-Svc-Event-Epoch", "X-Svc-SSE-Stream-Id", "X-Accel-Buffering"]));
  });

  test("declares every error status it answers with the shared error body", () => {
    const responses = op().responses;
    expect(Object.keys(responses).sort()).toEqual(["200", "400", "401", "403", "404", "413", "429", "500", "503"]);
    for (const status of ["400", "401", "403", "404", "413", "429", "500", "503"])
      expect(responses[status].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorBody" });
    expect(Object.keys(responses["429"].headers)).toEqual(["Retry-After"]);
    expect(Object.keys(responses["503"].headers)).toEqual(["Retry-After"]);
  });
});
