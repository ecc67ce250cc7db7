/**
 * The contract checker of the test helpers (`helpers/contract.ts`), on a small hand-written
 * document: it must catch what it exists to catch, or every suite's contract check is vacuous.
 */
import { describe, expect, test } from "bun:test";
import { Contract } from "../helpers/contract.ts";

const json = (schema: unknown) => ({ description: "", content: { "application/json": { schema } } });
const Thing = { type: "object", required: ["n"], properties: { n: { type: "integer" } }, additionalProperties: false };

const contract = new Contract({
  paths: {
    "/thing/{id}": {
      get: { responses: { 200: json({ $ref: "#/components/schemas/Thing" }), 404: json({ type: "object", required: ["error"], properties: { error: { type: "string" } } }) } },
      delete: { responses: { 204: { description: "" } } },
    },
    "/thing/special": { get: { responses: { 200: json({ type: "object", required: ["special"] }) } } },
    "/stream/{id}": {
      get: {
        responses: {
          200: { description: "", content: { "text/event-stream": { schema: { oneOf: [{ type: "object", required: ["type"], properties: { type: { const: "a" }, data: { type: "string" } } }] } } } },
        },
      },
    },
  },
  components: { schemas: { Thing } },
});

describe("a response of a matched operation", () => {
  test("a body matching its declared schema (through a component reference) passes", () => {
    expect(contract.check("GET", "/thing/1", 200, "application/json", '{"n":1}')).toBeNull();
  });

  test("a body contradicting its schema is named with method, path, operation, status and the error", () => {
    const problem = contract.check("GET", "/thing/1", 200, "application/json", '{"n":"one"}');
    expect(problem).toContain("GET /thing/1 → 200 (GET /thing/{id})");
    expect(problem).toContain("/n must be integer");
  });

  test("an undeclared field in a closed schema fails", () => {
    expect(contract.check("GET", "/thing/1", 200, "application/json", '{"n":1,"extra":true}')).toContain("must NOT have additional properties");
  });

  test("an undeclared status fails", () => {
    expect(contract.check("GET", "/thing/1", 500, "application/json", '{"error":"x"}')).toContain("status 500 is not declared (declared: 200, 404)");
  });

  test("an undeclared media type fails, and so does a body that is not JSON", () => {
    expect(contract.check("GET", "/thing/1", 200, "text/html", "<p>")).toContain("media type text/html is not declared");
    expect(contract.check("GET", "/thing/1", 200, "application/json", "{")).toContain("the body is not JSON");
  });

  test("a body on a status that declares none fails; none passes", () => {
    expect(contract.check("DELETE", "/thing/1", 204, null, "")).toBeNull();
    expect(contract.check("DELETE", "/thing/1", 204, "application/json", "{}")).toContain("a body came");
  });

  test("a literal route wins over a template; HEAD is checked against GET without a body", () => {
    expect(contract.check("GET", "/thing/special", 200, "application/json", '{"special":1}')).toBeNull();
    expect(contract.check("HEAD", "/thing/1", 200, "application/json", null)).toBeNull();
    expect(contract.check("HEAD", "/thing/1", 500, "application/json", null)).toContain("status 500 is not declared");
  });
});

describe("a path no operation matches", () => {
  test("must not succeed", () => {
    expect(contract.check("GET", "/nowhere", 200, "application/json", "{}")).toContain("no operation in the document matches");
    expect(contract.check("POST", "/thing/1", 200, "application/json", "{}")).toContain("no operation in the document matches");
  });

  test("must answer the daemon's JSON error body", () => {
    expect(contract.check("GET", "/nowhere", 404, "application/json", '{"error":"Not found","code":"route_not_found"}')).toBeNull();
    expect(contract.check("GET", "/nowhere", 404, "text/html", "<h1>Not found</h1>")).toContain("the error body is not JSON");
    expect(contract.check("GET", "/nowhere", 404, "application/json", '{"message":"x"}')).toContain("the error body is not {error, code?}");
  });

  test("except the routes the document hides on purpose, and the front door's 204 to OPTIONS", () => {
    expect(contract.check("GET", "/openapi.json", 200, "application/json", "{}")).toBeNull();
    expect(contract.check("OPTIONS", "/thing/1", 204, null, "")).toBeNull();
  });
});

describe("an event stream's frames", () => {
  test("a frame matching the declared frame schema passes; one that does not is named with its type", () => {
    expect(contract.checkFrame("/stream/1", { type: "a", data: "x" })).toBeNull();
    const problem = contract.checkFrame("/stream/1", { type: "a", data: 1 });
    expect(problem).toContain("GET /stream/1 (GET /stream/{id}) frame a");
    expect(problem).toContain("/data must be string");
  });

  test("a stream the document does not declare fails", () => {
    expect(contract.checkFrame("/thing/1", { type: "a" })).toContain("an event stream the document does not declare");
  });
});
