/**
 * The embedded web UI (`src/web/`): `GET /` answers the page shell, `GET /assets/<file>` its
 * content-hashed scripts and styles. Off with `--no-web` (the routes are not mounted). The UI routes
 * its views in the URL fragment (`/#/…`), so there is no HTML fallback for other paths: every path
 * that is not `/` or a known asset answers the app's JSON 404, an API path included.
 *
 * The shell and assets are public (the front door lets GET/HEAD of these paths through without a
 * bearer, see `isWebPath`): they are the same static code for everyone, and a browser cannot send a
 * bearer when it loads a page; the UI then asks for the token and sends it on its API calls.
 */
import page from "../../web/index.html";
import { jsonResponse } from "../error-response.ts";
import { ASSET_PREFIX, resolveWebBundle, type WebBundle } from "./web-bundle.ts";
import type { RouteApp } from "./route-app.ts";

/** The UI's Content-Security-Policy: its own origin only; no inline script or style, no frames. */
export const WEB_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const SHELL_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  // Revalidated on every load, so a new daemon's shell (new asset hashes) is picked up at once.
  "Cache-Control": "no-cache",
  "Content-Security-Policy": WEB_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
} as const;

/** An asset's name carries its content hash: it never changes, so it is cached for a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** GET/HEAD paths of the UI: what the front door serves without a bearer. */
export const isWebPath = (path: string) => path === "/" || path.startsWith(ASSET_PREFIX);

export const webRoutes = (app: RouteApp) => {
  let bundle: Promise<WebBundle> | null = null;
  // Resolved once, on the first request; a failed in-memory build (sources only) is retried next time.
  const load = () =>
    (bundle ??= resolveWebBundle(page).catch((err: unknown) => {
      bundle = null;
      throw err;
    }));
  return app
    .get("/", async () => new Response((await load()).shell, { headers: SHELL_HEADERS }), { detail: { hide: true } })
    .get(
      `${ASSET_PREFIX}*`,
      async ({ params }) => {
        const asset = (await load()).assets.get(params["*"]);
        if (asset === undefined) return jsonResponse({ error: "Not found", code: "route_not_found" }, 404);
        return new Response(asset.body, { headers: { "Content-Type": asset.type, "Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff" } });
      },
      { detail: { hide: true } },
    );
};
