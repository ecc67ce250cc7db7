/**
 * `/openapi.json` as SDK generators and client authors read it: every operation says what it takes
 * and what it answers. The served document is checked, so a route added without schemas fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { startDaemon, type TestDaemon } from "../helpers/daemon.ts";

interface MediaType {
  schema?: unknown;
}
interface Body {
  required?: boolean;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[];
  requestBody?: Body;
  responses?: Record<string, Body>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

/**
 * Operations whose schemas another change brings: the event stream's envelope and event data land
 * with the SSE contract work. Remove an entry once its operation is complete (a test below fails
 * when an exempted operation no longer needs it).
 */
const AWAITING_SCHEMAS = new Set<string>();

/** Statuses that carry no body. */
const BODYLESS = new Set(["204"]);

let d: TestDaemon;
let doc: Document;
beforeAll(async () => {
  d = await startDaemon();
  // Plain fetch: the contract checker loads this same document, and must not stand between the lint
  // and a document it cannot load (the lint is what says why).
  const res = await fetch(`${d.url}/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Document;
});
afterAll(() => d?.[Symbol.asyncDispose]());

function operations(): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [`${method} ${path}`, op] as [string, Operation]));
}

const linted = () => operations().filter(([name]) => !AWAITING_SCHEMAS.has(name));

/** A schema that says something: an object with at least one keyword (`{}` accepts anything). */
const isSchema = (schema: unknown) => typeof schema === "object" && schema !== null && Object.keys(schema).length > 0;

/** The problems of a body: no media type, or a media type without a schema. */
function bodyProblems(body: Body): string[] {
  const media = Object.entries(body.content ?? {});
  if (media.length === 0) return ["no media type (content: {})"];
  return media.filter(([, m]) => !isSchema(m.schema)).map(([type]) => `${type} has no schema`);
}

describe("the served OpenAPI document", () => {
  test("lists the daemon's routes", () => {
    expect(operations().length).toBeGreaterThan(20);
  });

  test("no request body is empty or required without a schema", () => {
    const problems = linted().flatMap(([name, op]) => (op.requestBody ? bodyProblems(op.requestBody).map((p) => `${name}: request body ${p}`) : []));
    expect(problems).toEqual([]);
  });

  test("every operation declares a success response with a schema (204: none)", () => {
    const problems: string[] = [];
    for (const [name, op] of linted()) {
      const success = Object.entries(op.responses ?? {}).filter(([status]) => status.startsWith("2"));
      if (success.length === 0) problems.push(`${name}: no 2xx response`);
      for (const [status, response] of success) {
        if (BODYLESS.has(status)) {
          if (response.content !== undefined) problems.push(`${name} ${status}: a bodyless status declares content`);
        } else problems.push(...bodyProblems(response).map((p) => `${name} ${status}: ${p}`));
      }
    }
    expect(problems).toEqual([]);
  });

  test("every error status declared has a schema, and every operation declares the front door's", () => {
    const problems: string[] = [];
    for (const [name, op] of linted()) {
      const errors = Object.entries(op.responses ?? {}).filter(([status]) => /^[45]/.test(status));
      for (const [status, response] of errors) problems.push(...bodyProblems(response).map((p) => `${name} ${status}: ${p}`));
      for (const status of ["400", "401", "403", "413", "429", "500", "503"]) if (!op.responses?.[status]) problems.push(`${name}: ${status} not declared`);
    }
    expect(problems).toEqual([]);
  });

  test("no response or request body schema takes a number spelled as a string", () => {
    // Elysia's `t.Integer`/`t.Numeric` are built for query strings: `anyOf: [{type: string, format:
    // integer|numeric}, {type: integer|number}]`. In a body that types every count as
    // `string | number` for SDK generators, and a request body would even take "5".
    const problems: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${where}/${i}`));
      if (typeof node !== "object" || node === null) return;
      const schema = node as { type?: unknown; format?: unknown };
      if (schema.type === "string" && (schema.format === "integer" || schema.format === "numeric")) problems.push(where);
      for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`);
    };
    for (const [name, op] of operations()) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) walk(media.schema, `${name} request ${type}`);
      for (const [status, response] of Object.entries(op.responses ?? {}))
        for (const [type, media] of Object.entries(response.content ?? {})) walk(media.schema, `${name} ${status} ${type}`);
    }
    walk(doc.components.schemas, "components");
    expect(problems).toEqual([]);
  });

  test("every $ref resolves", () => {
    const unresolved: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${where}/${i}`));
      if (typeof node !== "object" || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref") {
          const name = typeof value === "string" && value.startsWith("#/components/schemas/") ? value.slice("#/components/schemas/".length) : null;
          if (name === null || !(name in doc.components.schemas)) unresolved.push(`${where}: ${String(value)}`);
        } else walk(value, `${where}/${key}`);
      }
    };
    walk(doc, "#");
    expect(unresolved).toEqual([]);
  });

  test("loads into a plain JSON Schema 2020-12 validator, and every operation's schemas compile", () => {
    // What an SDK generator or a client's validator does with the document: no fragment `$id`s
    // (2020-12 forbids them, and the same one on several schemas is refused), no custom formats.
    const ajv = new Ajv2020({ strict: false, logger: false });
    ajv.addSchema(doc, "doc");
    const problems: string[] = [];
    const compile = (where: string, ...tokens: string[]) => {
      const pointer = tokens.map((t) => t.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
      try {
        ajv.compile({ $ref: `doc#/${pointer}` });
      } catch (error) {
        problems.push(`${where}: ${String(error).slice(0, 200)}`);
      }
    };
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const at = ["paths", path, method];
        (op.parameters ?? []).forEach((p, i) => compile(`${method} ${path} parameter ${p.name}`, ...at, "parameters", String(i), "schema"));
        for (const type of Object.keys(op.requestBody?.content ?? {})) compile(`${method} ${path} request ${type}`, ...at, "requestBody", "content", type, "schema");
        for (const [status, response] of Object.entries(op.responses ?? {}))
          for (const [type, media] of Object.entries(response.content ?? {})) if (media.schema !== undefined) compile(`${method} ${path} ${status} ${type}`, ...at, "responses", status, "content", type, "schema");
      }
    for (const name of Object.keys(doc.components.schemas)) compile(`components ${name}`, "components", "schemas", name);
    expect(problems).toEqual([]);
    expect(JSON.stringify(doc)).not.toMatch(/"\$id":"#/);
  });

  test("no string format but date-time, and no query parameter spelled as a format", () => {
    // A number a query takes is a string of digits (`pattern`); `format: integer|numeric` is Elysia's
    // and no JSON Schema validator knows it.
    const formats = new Set([...JSON.stringify(doc).matchAll(/"format":"([^"]*)"/g)].map((m) => m[1]));
    expect([...formats]).toEqual(["date-time"]);
  });

  test("a request body is required exactly where a request without one is refused", async () => {
    // The body reader reads a missing body as `{}`: past it, only the route's schema can refuse it
    // (400). Path parameters name nothing that exists, so no handler changes anything (POST /session
    // creates a session, which the daemon's disposal closes).
    const seen: string[] = [];
    const expected: string[] = [];
    for (const [name, op] of operations()) {
      if (op.requestBody === undefined) continue;
      const [method, path] = name.split(" ") as [string, string];
      const res = await fetch(`${d.url}${path.replace(/\{[^}]+\}/g, "no-such-id")}`, { method: method.toUpperCase() });
      const answer = (await res.json().catch(() => null)) as { code?: unknown } | null;
      if (res.status === 401) continue; // a strict route without a token configured: the body is never read
      if (answer?.code === "invalid_workspace") continue; // the path's workspace is refused before the body is read
      seen.push(`${name}: required ${op.requestBody.required === true} (answered ${res.status} without a body)`);
      expected.push(`${name}: required ${res.status === 400} (answered ${res.status} without a body)`);
    }
    expect(seen.length).toBeGreaterThan(5);
    expect(seen).toEqual(expected);
    for (const name of ["post /session", "post /session/{id}/load", "post /session/{id}/resume"]) expect(seen.find((e) => e.startsWith(`${name}:`))).toStartWith(`${name}: required false`);
  });

  test("load and resume declare the client id header they read", () => {
    for (const path of ["/session/{id}/load", "/session/{id}/resume"])
      expect(doc.paths[path]!.post!.parameters?.find((p) => p.in === "header" && p.name === "x-svc-client-id"), path).toMatchObject({ required: false });
  });

  test("the error bodies are named components", () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(["ErrorBody", "FsErrorBody"]));
  });

  test("operationIds are unique", () => {
    const ids = operations().map(([, op]) => op.operationId).filter((id): id is string => id !== undefined);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  test("every path parameter is declared, required and typed, and nothing else is declared as one", () => {
    const problems: string[] = [];
    for (const [name, op] of operations()) {
      const path = name.slice(name.indexOf(" ") + 1);
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!).sort();
      const declared = (op.parameters ?? []).filter((p) => p.in === "path");
      if (JSON.stringify(declared.map((p) => p.name).sort()) !== JSON.stringify(inTemplate)) problems.push(`${name}: declares ${declared.map((p) => p.name)} for ${inTemplate}`);
      for (const p of declared) if (p.required !== true || !isSchema(p.schema)) problems.push(`${name}: path parameter ${p.name} is not required and typed`);
    }
    expect(problems).toEqual([]);
  });

  test("an operation exempted above still lacks its schemas (else the exemption goes)", () => {
    for (const name of AWAITING_SCHEMAS) {
      const [method, path] = name.split(" ") as [string, string];
      const op = doc.paths[path]?.[method];
      expect(op, `${name} is exempted but not served`).toBeDefined();
      const success = Object.entries(op!.responses ?? {}).filter(([status]) => status.startsWith("2"));
      expect(success.some(([, r]) => bodyProblems(r).length === 0), `${name} now declares its success schema: remove it from AWAITING_SCHEMAS`).toBe(false);
    }
  });
});
