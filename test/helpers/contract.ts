/**
 * The contract test: every response a test receives from a daemon is checked against what the
 * daemon declares in its own `/openapi.json`, so a schema cannot drift from behaviour.
 *
 * - `underContract(url)` puts a daemon's base URL under contract (the test daemons and the session
 *   app do it when they start); `contractFetch` is the `fetch` of the test helpers (`d.fetch`,
 *   `d.json`, `jsonRequest`, `openSse`): for a URL under contract it matches method + path template
 *   to an operation, then checks the status is declared, the media type is one the status
 *   declares, and a JSON body validates against its schema (JSON Schema 2020-12, ajv). A HEAD is
 *   checked against its GET (status and media type; it has no body).
 * - `frameChecker(url)` checks each SSE frame's envelope against the stream's declared schema
 *   (`SseEvent`: the envelope and the data schema of its `type`).
 * - A path no operation matches (an unknown route, a spelling the router refuses, OPTIONS) must
 *   answer an error: not 2xx, except the front door's 204 to OPTIONS, and a JSON `{error}` body.
 *   The routes the document hides on purpose (`/openapi.json`, `/docs`, the web UI's shell and
 *   assets) are not checked.
 * - What a route does not declare yet is let through only where `contract-gaps.ts` (temporary)
 *   lists it.
 *
 * A violation is recorded, not thrown, so the test's own assertions still run; the preload
 * (`contract-hooks.ts`) then fails the test that received it with a message naming method, path,
 * status and the validation error.
 *
 * The document comes from a reference daemon of the run's target (in process, or the compiled
 * binary under SVC_TEST_TARGET=binary), started once per test process and stopped at once. It is
 * not fetched from each daemon under test: that would cost every test daemon a rendering of the
 * document and an extra request, which rate limits, connection caps and request counts in the
 * tests under way would see. The document does not depend on a daemon's flags (routes that only
 * some flags mount are hidden), so one served document stands for every daemon of the build.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import { UNDECLARED_ERROR_BODIES, UNDECLARED_STATUSES } from "./contract-gaps.ts";

/** Routes the document hides on purpose (the document itself, the docs page, the landing page). */
const UNDOCUMENTED_PATHS = new Set(["/openapi.json", "/docs", "/docs/docs.js", "/docs/docs.css", "/"]);
/** The web UI's assets (hidden too); an unknown asset still answers the checked JSON 404. */
const UNDOCUMENTED_ASSETS = "/assets/";
/** The daemon's general error body `{error, code?, …}`: what a path no operation matches answers (besides a non-2xx status). */
const ERROR_BODY = { type: "object", required: ["error"], properties: { error: { type: "string" }, code: { type: "string" } } };
/** The string format the document uses: RFC 3339 `date-time` (ajv knows none without ajv-formats). */
const FORMATS: Record<string, RegExp> = {
  "date-time": /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/,
};
/** How much of a body a violation message quotes. */
const QUOTE_CHARS = 300;
/** The key the document is registered under in ajv; its `#/components/...` references resolve inside it. */
const DOC_ID = "svc-openapi";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface MediaTypeObject {
  schema?: unknown;
}
interface ResponseObject {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaTypeObject>;
}
interface OperationObject {
  responses?: Record<string, ResponseObject>;
}
/** The parts of an OpenAPI 3.1 document the checker reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: Record<string, Json>;
}

interface Operation {
  /** `GET /session/{id}/events` */
  readonly key: string;
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly literalSegments: number;
  readonly responses: Record<string, ResponseObject>;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** JSON pointer token escaping (RFC 6901). */
const pointer = (...tokens: string[]) => tokens.map((t) => t.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
const quote = (text: string) => (text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text);
const describeErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword}${e.keyword === "additionalProperties" ? ` (${JSON.stringify(e.params)})` : ""}`)
    .join("; ");

export class Contract {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly isErrorBody: ValidateFunction;

  constructor(document: OpenApiDocument) {
    // No `discriminator: true`: ajv's implementation refuses a discriminator with a `mapping`, which
    // the document gives SseEvent; `oneOf` alone already requires exactly one frame variant.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const [name, pattern] of Object.entries(FORMATS)) this.ajv.addFormat(name, pattern);
    this.ajv.addSchema(document, DOC_ID);
    for (const [template, methods] of Object.entries(document.paths))
      for (const [method, op] of Object.entries(methods)) {
        const segments = template.split("/");
        this.operations.push({
          key: `${method.toUpperCase()} ${template}`,
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? "[^/]+" : escapeRegExp(s))).join("/")}$`),
          literalSegments: segments.filter((s) => !s.startsWith("{")).length,
          responses: op.responses ?? {},
        });
      }
    this.isErrorBody = this.ajv.compile(ERROR_BODY);
    // A literal route wins over a template that also matches (`/file/bytes` before `/file/{x}`).
    this.operations.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The operation `method path` reaches, or null. */
  match(method: string, path: string): Operation | null {
    const wanted = method === "HEAD" ? "GET" : method;
    return this.operations.find((op) => op.method === wanted && op.pattern.test(path)) ?? null;
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}#${ref}` });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  /**
   * The violation in one response, or null. `body` is the body's text (null when it was not read:
   * a HEAD, or an event stream, whose frames `checkFrame` takes).
   */
  check(method: string, path: string, status: number, mediaType: string | null, body: string | null): string | null {
    const where = `${method} ${path} → ${status}`;
    const op = this.match(method, path);
    if (op === null) return this.checkUnrouted(where, method, path, status, body);
    const at = `${where} (${op.key})`;
    const gap = UNDECLARED_STATUSES[op.key];
    const skippable = gap === "*" || (Array.isArray(gap) && gap.includes(status));
    const declared = op.responses[String(status)];
    if (declared === undefined) return skippable ? null : `${at}: status ${status} is not declared (declared: ${Object.keys(op.responses).join(", ") || "none"})`;
    const content = declared.content ?? {};
    if (Object.keys(content).length === 0) {
      if (body !== null && body !== "") return skippable ? null : `${at}: a body came, and the status declares none: ${quote(body)}`;
      return null;
    }
    if (mediaType === null || !(mediaType in content)) return `${at}: media type ${mediaType ?? "(none)"} is not declared (declared: ${Object.keys(content).join(", ")})`;
    if (content[mediaType]!.schema === undefined) return skippable ? null : `${at}: ${mediaType} declares no schema`;
    if (body === null || mediaType !== "application/json") return null;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `${at}: the body is not JSON: ${quote(body)}`;
    }
    const validate = this.validator(`/${pointer("paths", op.template, op.method.toLowerCase(), "responses", String(status), "content", mediaType, "schema")}`);
    if (validate(value)) return null;
    if (UNDECLARED_ERROR_BODIES[op.key]?.includes(status) && this.isErrorBody(value)) return null;
    return `${at}: the body does not match its schema: ${describeErrors(validate.errors)}; body: ${quote(body)}`;
  }

  private checkUnrouted(where: string, method: string, path: string, status: number, body: string | null): string | null {
    if ((method === "GET" || method === "HEAD") && UNDOCUMENTED_PATHS.has(path)) return null;
    if ((method === "GET" || method === "HEAD") && path.startsWith(UNDOCUMENTED_ASSETS) && status < 400) return null;
    if (method === "OPTIONS" && status === 204) return null; // the front door's CORS preflight / Allow answer
    if (status < 400) return `${where}: no operation in the document matches, yet it answered ${status}`;
    if (body === null) return null;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `${where}: (no operation matches) the error body is not JSON: ${quote(body)}`;
    }
    return this.isErrorBody(value) ? null : `${where}: (no operation matches) the error body is not {error, code?}: ${quote(body)}`;
  }

  /** The violation in one frame of `path`'s event stream, or null. */
  checkFrame(path: string, envelope: unknown): string | null {
    const op = this.match("GET", path);
    const schema = op?.responses["200"]?.content?.["text/event-stream"]?.schema;
    if (op === null || schema === undefined) return `GET ${path}: an event stream the document does not declare`;
    const validate = this.validator(`/${pointer("paths", op.template, "get", "responses", "200", "content", "text/event-stream", "schema")}`);
    if (validate(envelope)) return null;
    const type = (envelope as { type?: unknown })?.type;
    return `GET ${path} (${op.key}) frame ${String(type)}: does not match its schema: ${describeErrors(validate.errors)}; frame: ${quote(JSON.stringify(envelope))}`;
  }
}

let loaded: Promise<Contract> | null = null;

/** The contract of the run's target, from a reference daemon's served document (see the header). */
export function contract(): Promise<Contract> {
  return (loaded ??= (async () => {
    const { startDaemon } = await import("./daemon.ts");
    await using reference = await startDaemon();
    const response = await fetch(`${reference.url}/openapi.json`);
    if (response.status !== 200) throw new Error(`contract: the reference daemon answered /openapi.json with ${response.status}`);
    return new Contract((await response.json()) as OpenApiDocument);
  })());
}

/** Base URLs of the daemons under contract. */
const targets = new Set<string>();
/** Violations kept for the report between two `takeViolations`; past it they are only counted. */
const MAX_VIOLATIONS_KEPT = 50;
const violations: string[] = [];
let violationsDropped = 0;

function record(problem: string): void {
  if (violations.length < MAX_VIOLATIONS_KEPT) violations.push(problem);
  else violationsDropped++;
}

/**
 * Puts the daemon at `url` under contract; the returned function takes it off again. The contract
 * starts loading now, so the first response the test receives does not wait for it.
 */
export function underContract(url: string): () => void {
  const origin = new URL(url).origin;
  targets.add(origin);
  contract().catch(() => {}); // a failure to load is reported by the check that needs it
  return () => void targets.delete(origin);
}

/** The violations recorded since the last call (and forgets them). */
export function takeViolations(): string[] {
  const taken = violations.splice(0);
  if (violationsDropped > 0) taken.push(`… and ${violationsDropped} more`);
  violationsDropped = 0;
  return taken;
}

const mediaTypeOf = (response: Response) => response.headers.get("content-type")?.split(";")[0]!.trim().toLowerCase() ?? null;

/** `fetch`, with the response checked against the contract when `url` is a daemon under contract. */
export async function contractFetch(url: string, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  const parsed = new URL(url);
  if (!targets.has(parsed.origin)) return response;
  const method = (init?.method ?? "GET").toUpperCase();
  const mediaType = mediaTypeOf(response);
  let body: string | null = null;
  if (method !== "HEAD" && mediaType !== "text/event-stream") {
    try {
      body = await response.clone().text();
    } catch {
      return response; // the body never arrived (the test aborted it, or the connection broke)
    }
  }
  const problem = (await contract()).check(method, parsed.pathname, response.status, mediaType, body);
  if (problem !== null) record(problem);
  return response;
}

/** For an event stream of a daemon under contract: checks one frame's envelope; null otherwise. */
export async function frameChecker(url: string): Promise<((envelope: unknown) => void) | null> {
  const parsed = new URL(url);
  if (!targets.has(parsed.origin)) return null;
  const checked = await contract();
  return (envelope) => {
    const problem = checked.checkFrame(parsed.pathname, envelope);
    if (problem !== null) record(problem);
  };
}
