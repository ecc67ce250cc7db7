/**
 * What a daemon restarting into an update hands the new one, and what it reads of its own start:
 *  - the handover nonce: a fresh secret the restarting daemon puts in the new daemon's environment
 *    (not its argv, which every local user can read); the new daemon echoes it on a `GET /health`
 *    that asks for it (`HANDOVER_REQUEST_HEADER`), so the restart knows the port is held by the
 *    process it started and not by whoever grabbed it in between;
 *  - the new daemon's arguments: the old ones with the bound port pinned (replaced, not appended,
 *    so restarts do not grow them) and without `--open` (the browser is opened once, at first start);
 *  - the service manager the daemon runs under (systemd, launchd), which then restarts it instead.
 */
export const HANDOVER_NONCE_ENV = "SVC_UPDATE_NONCE";
/** Sent by the restart's health check; answered with `HANDOVER_NONCE_HEADER` by a daemon started with a nonce. */
export const HANDOVER_REQUEST_HEADER = "x-svc-update-handshake";
export const HANDOVER_NONCE_HEADER = "x-svc-update-nonce";

/** The nonce this daemon was started with (null: not started by a restart). */
export const handoverNonce = (env: Readonly<Record<string, string | undefined>>): string | null => env[HANDOVER_NONCE_ENV] || null;

/** `serve` arguments for the updated daemon: `--port`/`--port=` replaced by the bound port, `--open` dropped. */
export function relaunchArgs(args: readonly string[], port: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--port") {
      i++; // its value
      continue;
    }
    if (arg.startsWith("--port=") || arg === "--open") continue;
    out.push(arg);
  }
  return ["serve", ...out, "--port", String(port)];
}

export type ServiceManager = "systemd" | "launchd";

/** EX_TEMPFAIL: how a daemon under a service manager leaves for it to restart the update; a failure exit, which systemd's `Restart=on-failure` and launchd's `KeepAlive` restart on. */
export const SERVICE_RESTART_EXIT_CODE = 75;

/** The service manager that started this process (its marker variables), or null. */
export function serviceManager(env: Readonly<Record<string, string | undefined>>): ServiceManager | null {
  if (env.INVOCATION_ID || env.NOTIFY_SOCKET) return "systemd";
  // Terminal sessions carry "0", apps started from the GUI "application.<id>…": neither is a service.
  const xpc = env.XPC_SERVICE_NAME;
  if (xpc && xpc !== "0" && !xpc.startsWith("application.")) return "launchd";
  return null;
}
