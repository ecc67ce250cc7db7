/**
 * The floor: a bare `Bun.serve` that answers "ok", no framework, no security chain, no logging.
 * The bench compiles it with `bun build --compile` in the same run as svc (`lib/bare-binaries.ts`).
 * Prints `listening on <url>` like `svc serve` so the bench starts both the same way.
 */
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
process.stdout.write(`bare listening on http://127.0.0.1:${server.port}\n`);
process.on("SIGTERM", () => {
  void server.stop(true);
  process.exit(0);
});
