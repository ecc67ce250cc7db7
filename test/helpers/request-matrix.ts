/**
 * A request matrix over every route of a daemon's `/openapi.json` and what lies beside it (pages,
 * unknown paths, methods a route does not have): for each operation a valid base
 * request, then one variation at a time of each query parameter (negative, zero, at and past the
 * bounds, non-integer, not a number, empty, repeated, missing), of each path parameter (missing
 * resource, too long, encoded traversal) and of the body (each field missing and of every wrong
 * type, extra fields, non-object JSON, invalid JSON, empty, the wrong content type). Deterministic:
 * the same document gives the same requests in the same order, so two daemons can be compared
 * answer by answer.
 *
 * The requests expect a workspace holding MATRIX_FIXTURE. Paths may hold `{workspace}`, to be replaced by each daemon's own workspace (percent-encoded) when
 * the request is sent.
 */

/** The parts of an OpenAPI 3 document the matrix reads. */
export interface OpenApiDoc {
  readonly paths: Record<string, Record<string, OpenApiOperation>>;
}
interface OpenApiOperation {
  readonly parameters?: readonly { readonly in: string; readonly name: string; readonly required?: boolean; readonly schema?: JsonSchema }[];
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: JsonSchema }> };
}
interface JsonSchema {
  readonly type?: string;
  readonly format?: string;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly const?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly required?: readonly string[];
  readonly properties?: Record<string, JsonSchema>;
}

export interface MatrixRequest {
  /** What varies, for failure messages: `GET /file/bytes?maxBytes=-1`. */
  readonly label: string;
  readonly method: string;
  /** Path and query, `{workspace}` not yet replaced. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
}

/** The workspace the matrix's valid requests refer to. */
export const MATRIX_FIXTURE: Readonly<Record<string, string | Uint8Array>> = {
  "hello.txt": "hello\nworld\n",
  "crlf.txt": "one\r\ntwo\r\n",
  "edit-me.txt": "alpha\nbravo\n",
  "dir/nested.txt": "nested\n",
  "binary.bin": Uint8Array.from({ length: 512 }, (_, i) => i % 256),
  "big.txt": "0123456789abcdef\n".repeat(20_000),
  ".gitignore": "ignored.txt\n",
  "ignored.txt": "ignored\n",
};
const hashOf = (content: string | Uint8Array) => `sha256:${new Bun.CryptoHasher("sha256").update(content).digest("hex")}`;

/** Valid values for required parameters, by name (and by route where one name means different things). */
const BASE_QUERY: Record<string, string> = { path: "hello.txt", pattern: "**/*.txt", cwd: "." };
const BASE_QUERY_BY_ROUTE: Record<string, Record<string, string>> = { "/list": { path: "." } };
/** Path parameters: a resource that does not exist, except the workspace, which does. */
const BASE_PARAM: Record<string, string> = { requestId: "parity-no-such-request" };
const BASE_PARAM_BY_ROUTE: Record<string, Record<string, string>> = { "/workspace/{id}/sessions": { id: "{workspace}" } };
const MISSING_RESOURCE = "parity-no-such-session";
/** Valid bodies of the routes whose body has a schema. */
const BASE_BODY: Record<string, Record<string, unknown>> = {
  "/file/write": { path: "parity-new.txt", content: "new\n", mode: "create" },
  "/file/edit": { path: "edit-me.txt", oldText: "alpha", newText: "beta", expectedHash: hashOf(MATRIX_FIXTURE["edit-me.txt"]!) },
};

/** Path segments as sent (percent-encoded). */
const PARAM_VALUES = ["", "a".repeat(600), "%2e%2e%2f%2e%2e%2fetc", "%00", "x%20y", "%ff"];
const STRING_VALUES = ["", "missing.txt", "dir", "../../etc/passwd", "/etc/passwd", "\u0000", "a".repeat(300)];
const NUMBER_VALUES = ["-5", "-1", "0", "1", "2", "1.5", "1e3", "0x10", " 7", "+3", "abc", "", "NaN", "Infinity", "9007199254740993"];
/** Wrong-typed JSON values for a body field. */
const WRONG_JSON: readonly unknown[] = [null, 1, -1, 1.5, "x", "", true, [], {}, ["x"], { x: 1 }];
/** Bodies for routes whose body the handler checks itself (no schema): shapes and common field names of wrong types. */
const LOOSE_FIELDS = ["prompt", "sessionScope", "cwd", "modelId", "metadata", "outcome", "optionId", "deadlineMs", "clientId", "title"];
const RAW_BODIES: readonly [string, string | undefined, string][] = [
  ["invalid JSON", "application/json", '{"a":'],
  ["empty", "application/json", ""],
  ["a JSON array", "application/json", "[]"],
  ["a JSON string", "application/json", '"x"'],
  ["JSON null", "application/json", "null"],
  ["a JSON number", "application/json", "1"],
  ["text/plain", "text/plain", "{}"],
  ["no content type", undefined, "{}"],
];

function isInteger(schema: JsonSchema | undefined): boolean {
  return schema?.type === "integer" || schema?.type === "number" || (schema?.anyOf ?? []).some((s) => s.type === "integer" || s.format === "integer" || s.format === "numeric");
}

/** Values of a query parameter to try, bounds first. */
function queryValues(schema: JsonSchema | undefined): string[] {
  if (isInteger(schema)) {
    const bounds = [schema?.minimum, schema?.maximum].flatMap((b) => (b === undefined ? [] : [String(b - 1), String(b), String(b + 1)]));
    return [...new Set([...bounds, ...NUMBER_VALUES])];
  }
  const literals = schema?.enum ?? (schema?.anyOf ?? []).flatMap((s) => (s.const === undefined ? [] : [s.const]));
  if (literals.length > 0) return [...literals.map(String), "yes", "TRUE", "2"];
  return STRING_VALUES;
}

const encode = (name: string, value: string) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
const queryString = (pairs: readonly [string, string][]) => (pairs.length === 0 ? "" : `?${pairs.map(([n, v]) => encode(n, v)).join("&")}`);

/** `values` are path segments as sent (already percent-encoded). */
function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => values[name]!);
}

function bodyVariants(route: string, schema: JsonSchema | undefined): [string, string | undefined, string][] {
  const out: [string, string | undefined, string][] = [];
  const json = (label: string, value: unknown) => out.push([label, "application/json", JSON.stringify(value)]);
  const base = BASE_BODY[route];
  if (base && schema?.properties) {
    json("valid", base);
    for (const [name] of Object.entries(schema.properties)) {
      const { [name]: _, ...rest } = base;
      json(`without ${name}`, rest);
      for (const wrong of WRONG_JSON) json(`${name}=${JSON.stringify(wrong)}`, { ...base, [name]: wrong });
    }
    json("an extra field", { ...base, bogus: 1 });
  } else {
    json("{}", {});
    for (const field of LOOSE_FIELDS) for (const wrong of WRONG_JSON) json(`${field}=${JSON.stringify(wrong)}`, { [field]: wrong });
  }
  for (const [label, type, text] of RAW_BODIES) out.push([label, type, text]);
  return out;
}

/** What lies outside the document: the pages, the document itself, unknown paths and methods. */
const OFF_DOCUMENT: readonly [string, string][] = [
  ["GET", "/"],
  ["GET", "/docs"],
  ["GET", "/docs/docs.js"],
  ["GET", "/docs/docs.css"],
  ["GET", "/docs/nope.js"],
  ["GET", "/openapi.json"],
  ["GET", "/nope"],
  ["GET", "/health/"],
  ["GET", "/HEALTH"],
  ["OPTIONS", "/health"],
  ["HEAD", "/capabilities"],
];
/** Methods no route of the daemon answers to: each route is tried with one of them. */
const WRONG_METHODS = ["PUT", "PATCH", "DELETE", "POST", "GET"];

export function requestMatrix(doc: OpenApiDoc): MatrixRequest[] {
  const out: MatrixRequest[] = OFF_DOCUMENT.map(([method, path]) => ({ label: `${method} ${path}`, method, path }));
  for (const [route, operations] of Object.entries(doc.paths)) {
    const method = WRONG_METHODS.find((m) => !(m.toLowerCase() in operations))!;
    const path = route.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => BASE_PARAM_BY_ROUTE[route]?.[name] ?? BASE_PARAM[name] ?? MISSING_RESOURCE);
    out.push({ label: `${method} ${route} (a method it does not have)`, method, path });
  }
  for (const [route, operations] of Object.entries(doc.paths))
    for (const [lower, operation] of Object.entries(operations)) {
      const method = lower.toUpperCase();
      const params = operation.parameters ?? [];
      const pathParams = params.filter((p) => p.in === "path");
      const query = params.filter((p) => p.in === "query");
      const pathValues = Object.fromEntries(pathParams.map((p) => [p.name, BASE_PARAM_BY_ROUTE[route]?.[p.name] ?? BASE_PARAM[p.name] ?? MISSING_RESOURCE]));
      const baseQuery = query.filter((p) => p.required).map((p): [string, string] => [p.name, BASE_QUERY_BY_ROUTE[route]?.[p.name] ?? BASE_QUERY[p.name] ?? "x"]);
      const basePath = fillPath(route, pathValues);
      const request = (label: string, path: string, body?: [string | undefined, string]) =>
        out.push({ label: `${method} ${label}`, method, path, ...(body ? { contentType: body[0], body: body[1] } : {}) });
      const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
      const bodies = operation.requestBody ? bodyVariants(route, bodySchema) : [];
      const defaultBody = bodies[0] ? ([bodies[0][1], bodies[0][2]] as [string | undefined, string]) : undefined;

      request(`${route} (base)`, basePath + queryString(baseQuery), defaultBody);
      for (const p of pathParams)
        for (const value of PARAM_VALUES) request(`${route} ${p.name}=${JSON.stringify(value.slice(0, 40))}`, fillPath(route, { ...pathValues, [p.name]: value }), defaultBody);
      for (const p of query) {
        const others = baseQuery.filter(([n]) => n !== p.name);
        if (p.required) request(`${route} without ${p.name}`, basePath + queryString(others), defaultBody);
        for (const value of queryValues(p.schema)) request(`${route}?${p.name}=${JSON.stringify(value.slice(0, 40))}`, basePath + queryString([...others, [p.name, value]]), defaultBody);
        request(`${route}?${p.name} twice`, basePath + queryString([...others, [p.name, "1"], [p.name, "2"]]), defaultBody);
      }
      if (query.length > 0) request(`${route}?bogus=1`, basePath + queryString([...baseQuery, ["bogus", "1"]]), defaultBody);
      for (const [label, type, text] of bodies.slice(1)) request(`${route} body ${label}`, basePath + queryString(baseQuery), [type, text]);
    }
  return out;
}
