/** Shapes of `/daemon/update*` (svc's own: the reference daemon implements no update). */
import { Type } from "@sinclair/typebox";
import { t } from "elysia";

const orNull = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);

export const LastRestart = t.Object(
  {
    outcome: t.Union([t.Literal("restarted"), t.Literal("rolled_back"), t.Literal("service_restart")], {
      description: "service_restart: the binary was swapped and the service manager (systemd, launchd) restarted the daemon",
    }),
    fromVersion: t.String(),
    toVersion: t.String(),
    at: t.String({ description: "ISO time the restart ended" }),
    fromPid: Type.Integer({ description: "the daemon that restarted" }),
    pid: orNull(Type.Integer({ description: "the new daemon's pid; null after a rollback or a service_restart" })),
    error: orNull(t.String({ description: "why the new build was rolled back" })),
  },
  { description: "The last restart into an update in this data dir" },
);

export const UpdateStatus = t.Object({
  currentVersion: t.String({ description: "the running build" }),
  releaseUrl: t.String({ description: "the release location checked (--release-url, SVC_RELEASE_URL, else the project's)" }),
  latestVersion: orNull(t.String({ description: "the newest release, from its signed SHA256SUMS; null when the check failed" })),
  updateAvailable: orNull(t.Boolean({ description: "the newest release is newer than the running build (semver order); null when the check failed (never read as up to date)" })),
  checkError: orNull(
    t.Object({
      code: t.String({ description: "release_unreachable, release_too_large or release_unverified" }),
      error: t.String(),
    }),
  ),
  checkedAt: t.String(),
  staged: orNull(
    t.Object(
      { version: t.String(), sha256: t.String({ description: "of the staged binary" }), preparedAt: t.String() },
      { description: "a verified update waiting for POST /daemon/update/restart" },
    ),
  ),
  lastRestart: orNull(LastRestart),
});

export const RestartAnswer = t.Object(
  {
    outcome: t.Union([t.Literal("restarted"), t.Literal("service_restart")], {
      description: "restarted: the new daemon serves the port; service_restart: under systemd or launchd, the binary is swapped and this daemon exits with 75 for the manager to restart it",
    }),
    fromVersion: t.String(),
    toVersion: t.String(),
    at: t.String(),
    fromPid: Type.Integer(),
    pid: orNull(Type.Integer({ description: "the new daemon, serving the same port (null under a service manager, which starts it); this one exits right after answering" })),
    error: t.Null(),
  },
  { description: "The new build serves the port (or the service manager starts it); live sessions ended as restorable and clients restore them" },
);

export const PrepareBody = t.Optional(
  t.Object(
    { allowDowngrade: t.Optional(t.Boolean({ description: "stage the newest release even when it is older than the running build (refused otherwise: 409 update_downgrade)" })) },
    { additionalProperties: false },
  ),
);
