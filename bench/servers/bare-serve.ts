/**
 * The baseline: a bare `Bun.serve` JSON handler, no framework, no security chain, no logging.
 * Prints `listening on <url>` like `svc serve` so the bench starts both the same way.
 */
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ status: "ok" }) });
process.stdout.write(`bare listening on http://127.0.0.1:${server.port}\n`);
process.on("SIGTERM", () => {
  void server.stop(true);
  process.exit(0);
});
