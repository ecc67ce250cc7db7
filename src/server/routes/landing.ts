/** `GET /`: a small embedded landing page (version, links to the API docs). Off with `--no-web`. */
import { Elysia } from "elysia";
import landingPage from "../assets/landing.html" with { type: "text" };

// bun-types types *.html imports as HTML bundles; `type: "text"` makes them plain strings.
const landingHtml = landingPage as unknown as string;

const CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";

export const landingRoutes = (version: string) => {
  const page = landingHtml.replace("{{VERSION}}", Bun.escapeHTML(version));
  return new Elysia({ name: "routes/landing" }).get(
    "/",
    () => new Response(page, { headers: { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff" } }),
    { detail: { hide: true } },
  );
};
