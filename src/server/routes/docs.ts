/**
 * API documentation: `GET /openapi.json` generated from the route schemas, and a small docs page
 * (`/docs`) whose assets are embedded in the binary, so it works with no network at all.
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import docsCss from "../assets/docs.css" with { type: "text" };
import docsPage from "../assets/docs.html" with { type: "text" };
import docsJs from "../assets/docs.js" with { type: "text" };

// bun-types types *.html imports as HTML bundles; `type: "text"` makes them plain strings.
const docsHtml = docsPage as unknown as string;
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

function asset(body: string, type: string) {
  return () => new Response(body, { headers: { "Content-Type": type, "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff" } });
}

export const docsRoutes = (version: string) =>
  new Elysia({ name: "routes/docs" })
    .use(
      openapi({
        provider: null,
        specPath: "/openapi.json",
        documentation: {
          info: { title: "svc daemon HTTP API", version, description: "HTTP (JSON) and SSE interface in front of ACP coding agents." },
          components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } },
          security: [{ bearerAuth: [] }],
        },
      }),
    )
    .get("/docs", asset(docsHtml, "text/html; charset=utf-8"), { detail: { hide: true } })
    .get("/docs/docs.js", asset(docsJs, "text/javascript; charset=utf-8"), { detail: { hide: true } })
    .get("/docs/docs.css", asset(docsCss, "text/css; charset=utf-8"), { detail: { hide: true } });
