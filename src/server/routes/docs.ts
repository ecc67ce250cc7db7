/**
 * API documentation: `GET /openapi.json` generated from the route schemas (on first request; the
 * generator is loaded only then, keeping it out of startup), and a small docs page (`/docs`) whose
 * assets are embedded in the binary, so it works with no network at all.
 */
import { KindGuard } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import docsCss from "../assets/docs.css" with { type: "text" };
import docsPage from "../assets/docs.html" with { type: "text" };
import docsJs from "../assets/docs.js" with { type: "text" };
import { loadEventSchemas, loadOpenApi } from "../lazy-seams.ts";
import type { RouteApp } from "./route-app.ts";

// bun-types types *.html imports as HTML bundles; `type: "text"` makes them plain strings.
const docsHtml = docsPage as unknown as string;
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'";
const OPENAPI_VERSION = "3.1.2";

/**
 * How the document describes request bodies. Every body is read by the app's one parser
 * (`json-body.ts`, registered with `onParse`), which the generator sees as a function it cannot
 * name, so it lists no media type for it: `content: {}`. The parser reads JSON, whatever the
 * Content-Type; the generator is told so by the parser's name.
 */
const JSON_PARSER = [{ fn: "json" }];

interface GeneratorRoute {
  method: string;
  path: string;
  hooks?: Record<string, unknown>;
}

/** What the generator calls on the app (protected in Elysia's types, public at runtime). */
interface GeneratorSource {
  getGlobalRoutes(): GeneratorRoute[];
  getGlobalDefinitions(): { type: Record<string, unknown> };
}

/**
 * The view of the app the generator reads: its routes, each route's parse hook named for what it
 * reads, and its models with `extraSchemas` after them (the generator lists every model under
 * `components.schemas`). Nothing of the app itself changes.
 */
function documentedApp(root: Elysia, extraSchemas: Record<string, unknown>): Elysia {
  const app = root as unknown as GeneratorSource;
  const routes = app.getGlobalRoutes().map((route) => ({ ...route, hooks: { ...route.hooks, parse: JSON_PARSER } }));
  const definitions = app.getGlobalDefinitions();
  const view: GeneratorSource = { getGlobalRoutes: () => routes, getGlobalDefinitions: () => ({ ...definitions, type: { ...definitions.type, ...extraSchemas } }) };
  return view as unknown as Elysia;
}

interface ResponseObject {
  content?: Record<string, unknown>;
}

/**
 * A status without a body (`t.Null()`, e.g. 204) comes out of the generator as
 * `content: {type: "null"}`, which is not a media-type map; OpenAPI says such a response has no
 * `content`.
 */
function dropBodylessContent(paths: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>): void {
  for (const operations of Object.values(paths))
    for (const operation of Object.values(operations))
      for (const response of Object.values(operation.responses ?? {}))
        if (response.content && "type" in response.content) delete response.content;
}

/**
 * Elysia's `.model()` stamps each named schema object with a fragment-only `$id`
 * (`#/components/schemas/ErrorBody`), and the object carries it wherever it is used whole: under
 * `components.schemas` and inlined in a route's schema (a union built from the models). JSON
 * Schema 2020-12 forbids fragment `$id`s, and a validator loading the document finds the same id on
 * several schemas and refuses it. Every use of a model is reached by its place in the document (a
 * `$ref` names `#/components/schemas/<name>`), so the ids say nothing: they are left out.
 */
function withoutFragmentIds(key: string, value: unknown): unknown {
  return key === "$id" && typeof value === "string" && value.startsWith("#") ? undefined : value;
}

/**
 * The generator marks every request body `required: true`. The body reader reads a request without
 * a body as `{}` (json-body.ts), so a route whose body schema takes `{}` (every member optional, or
 * the schema `t.Optional`) takes a request without one: its operation says `required: false`.
 */
function markOptionalBodies(routes: readonly GeneratorRoute[], paths: Record<string, Record<string, { requestBody?: { required?: boolean } }>>): void {
  for (const route of routes) {
    const body = route.hooks?.body;
    if (!KindGuard.IsSchema(body) || !Value.Check(body, {})) continue;
    const operation = paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
    if (operation?.requestBody) operation.requestBody.required = false;
  }
}

function asset(body: string, type: string) {
  return () => new Response(body, { headers: { "Content-Type": type, "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff" } });
}

/** `root` returns the assembled application, whose routes the document describes. */
export const docsRoutes = (app: RouteApp, version: string, root: () => Elysia) => {
  let document: Promise<string> | null = null;
  const render = async () => {
    const [{ toOpenAPISchema }, { EVENT_SCHEMAS }] = await Promise.all([loadOpenApi(), loadEventSchemas()]);
    const built = root();
    // Elysia builds a route's validators when the route first runs, and doing so writes into the
    // route's schema objects (`additionalProperties: false` for normalisation). Build them all first,
    // so the document is the same whichever routes ran before it was asked for.
    for (const route of built.router.history) route.compile?.();
    // The event stream's frames (`SseEvent`, which GET /session/:id/events names) are published beside the models.
    const view = documentedApp(built, EVENT_SCHEMAS);
    const { paths, components } = toOpenAPISchema(view, undefined, undefined, undefined, OPENAPI_VERSION);
    dropBodylessContent(paths as Parameters<typeof dropBodylessContent>[0]);
    markOptionalBodies((view as unknown as GeneratorSource).getGlobalRoutes(), paths as Parameters<typeof markOptionalBodies>[1]);
    return JSON.stringify(
      {
        openapi: OPENAPI_VERSION,
        info: { title: "svc daemon HTTP API", version, description: "HTTP (JSON) and SSE interface in front of ACP coding agents." },
        security: [{ bearerAuth: [] }],
        paths,
        components: { ...components, securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } },
      },
      withoutFragmentIds,
    );
  };
  return app
    .get(
      "/openapi.json",
      async () => new Response(await (document ??= render()), { headers: { "Content-Type": "application/json; charset=utf-8" } }),
      { detail: { hide: true } },
    )
    .get("/docs", asset(docsHtml, "text/html; charset=utf-8"), { detail: { hide: true } })
    .get("/docs/docs.js", asset(docsJs, "text/javascript; charset=utf-8"), { detail: { hide: true } })
    .get("/docs/docs.css", asset(docsCss, "text/css; charset=utf-8"), { detail: { hide: true } });
};
