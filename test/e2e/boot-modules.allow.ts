/**
 * The module guard's allow-list (`boot-modules.test.ts`): every module an idle `svc serve` may have
 * loaded, each entry with its reason. An entry is a repo-relative source path, or a folder when it
 * ends in `/`. A module that no entry admits fails the guard: load it through a seam
 * (`src/server/lazy-seams.ts`, `src/main.ts` for commands) or add it here with its reason.
 *
 * Idle means: the daemon has answered a launcher's `GET /health` and `GET /capabilities` and nothing else. At that point
 * it holds its front door and nothing past it: no package at all (no Elysia, no TypeBox, no ACP or
 * AI or MCP SDK), no session, runtime, event or store code (but the registrations' JSON mirror), no
 * route, no web UI.
 */
export interface Allowed {
  readonly module: string;
  readonly reason: string;
  /** Modules under a folder entry that it does not admit (each loads on its own first use). */
  readonly except?: readonly string[];
}

export const IDLE_DAEMON: readonly Allowed[] = [
  { module: "src/main.ts", reason: "the entry: reads the command and imports that command's code only" },
  { module: "src/version.ts", reason: "the version, printed in the listening line and the discovery record" },
  { module: "package.json", reason: "the version's fallback (bundled: a few bytes)" },
  { module: "src/serve-command.ts", reason: "svc serve: config, process hardening, discovery file, signals" },
  { module: "src/daemon.ts", reason: "binds the listener behind the front door; the core comes through lazy-seams.ts" },

  // Configuration: every flag, environment variable and settings file is read and checked at boot, so a bad one stops the start.
  { module: "src/config/flags.ts", reason: "the flag table" },
  { module: "src/config/config.ts", reason: "the Config, derived from flags, env and settings" },
  { module: "src/config/boot-error.ts", reason: "how a bad setting stops the start" },
  { module: "src/config/settings.ts", reason: "the host settings file" },
  { module: "src/config/settings-file.ts", reason: "reads settings files within their bound" },
  { module: "src/config/settings-doc.ts", reason: "the settings document's shape" },
  { module: "src/config/agent-launch.ts", reason: "which agent to run, checked at boot (an unknown or missing one is a boot error)" },
  { module: "src/config/agent-catalog.ts", reason: "the agent names --agent accepts" },
  { module: "src/config/agent-settings.ts", reason: "agent entries of the host settings" },
  { module: "src/config/channel-settings.ts", reason: "channel webhook entries of the host settings (a malformed one is a boot error)" },
  { module: "src/config/approval-modes.ts", reason: "--approval-mode's values" },
  { module: "src/config/net.ts", reason: "loopback and URL host of --hostname" },
  { module: "src/config/update-handover.ts", reason: "the update handover's nonce and the arguments a restart into an update would use (the update code itself is loaded on first use)" },
  { module: "src/config/origin-patterns.ts", reason: "--allow-origin's patterns" },
  { module: "src/config/token.ts", reason: "the bearer token's checks" },
  { module: "src/config/launchd-start.ts", reason: "whether svc's launchd agent started the daemon (it then bounds launchd's restart loop)" },
  { module: "src/config/token-file.ts", reason: "--token-file: the token read from a 0600 file of the user's, checked at boot" },
  { module: "src/config/npm-registry.ts", reason: "SVC_NPM_REGISTRY, checked at boot (a bad URL is a boot error)" },
  { module: "src/config/canonical-folder.ts", reason: "the workspace's canonical path" },
  { module: "src/config/agent-keys.ts", reason: "the host's agent keys, shielded from children before anything spawns" },
  { module: "src/config/env-providers.ts", reason: "which environment variables hold agent keys (for the shield)" },
  { module: "src/config/secret-names.ts", reason: "which variable names are secrets (for the shield)" },
  { module: "src/config/builtin-models.ts", reason: "whether the built-in agent would have a model, for the start-up warning (the model rules only, not the agent's configuration)" },
  { module: "src/config/workspace-policy.ts", reason: "warns at boot about workspace settings the built-in agent will not apply" },

  { module: "src/logging/", reason: "the logger, console routing, fault handlers, the SIGUSR2 module report and printOut (the listening line)" },
  { module: "src/errors/daemon-error.ts", reason: "typed errors the front door and the trust store throw" },
  { module: "src/trust/", reason: "the workspace's trust: decided and logged at boot, its store watched for changes" },

  // Process hardening and the launcher contract, before the announcement.
  { module: "src/runtime/secret-shield.ts", reason: "secrets out of children's reach (prctl), before anything spawns" },
  { module: "src/runtime/startup-strings.ts", reason: "blanks secrets in the process's startup strings" },
  { module: "src/runtime/libc.ts", reason: "prctl for the shield and the subreaper" },
  { module: "src/runtime/agent-family.ts", reason: "adopts orphaned tool processes (child subreaper)" },
  { module: "src/runtime/process-table.ts", reason: "reads /proc for the subreaper's adopted orphans" },
  { module: "src/runtime/own-children.ts", reason: "the daemon's own git runs, which the subreaper's sweep must not reap" },
  { module: "src/runtime/stderr-secrets.ts", reason: "secrets the console routing redacts" },
  { module: "src/runtime/discovery-file.ts", reason: "the discovery file launchers find the daemon by" },
  { module: "src/runtime/process-identity.ts", reason: "pid start times for the discovery record and --parent-pid" },
  { module: "src/runtime/parent-watch.ts", reason: "--parent-pid" },
  { module: "src/runtime/private-data-dir.ts", reason: "narrows a data dir open to others to 0700 at boot, before anything is written to it" },

  // The front door: every request passes it, and it answers GET /health on its own.
  { module: "src/server/front-door.ts", reason: "the security chain in front of the app, and /health before the app exists" },
  { module: "src/server/security/", reason: "CORS, Host allowlist, bearer, rate limits: the front door's gates" },
  { module: "src/server/health-answer.ts", reason: "the shallow /health answer" },
  { module: "src/server/capabilities-answer.ts", reason: "the /capabilities answer, which launchers poll too" },
  { module: "src/server/boot-workspaces.ts", reason: "the workspaces /capabilities lists before the core: the persistent registrations from their mirror" },
  { module: "src/store/registration-mirror.ts", reason: "the registrations' JSON mirror, read with node:fs (no SQLite, no other store code)" },
  { module: "src/store/db-file.ts", reason: "svc.db's file name: with no database, nothing was ever registered" },
  { module: "src/workspace-registry/registration-path.ts", reason: "the checks the core applies to each persisted registration, so the boot list is the core's (node:fs only)" },
  { module: "src/sessions/organization-limits.ts", reason: "the session organization bounds /capabilities reports (two numbers)" },
  { module: "src/server/route-tags.ts", reason: "the build's capability tags, for /capabilities without the app" },
  { module: "src/server/capability.ts", reason: "features from tags and config (featureTags)" },
  { module: "src/workspace/workspace-id.ts", reason: "the workspace id in /capabilities" },
  { module: "src/server/error-response.ts", reason: "the front door's error bodies" },
  { module: "src/errors/resource-exhaustion.ts", reason: "out of descriptors or memory is a retryable 503, in the front door's error bodies" },
  { module: "src/server/json-body.ts", reason: "the body size cap the front door checks (MAX_JSON_BODY_BYTES)" },
  { module: "src/server/transport-stats.ts", reason: "connection and request counts the front door keeps" },
  { module: "src/server/lazy-seams.ts", reason: "the seams themselves: functions that import the rest on first use" },
];

/**
 * What a daemon may hold once it has served a session list and the full daemon status (its core is
 * built, `src/server/app-core.ts`), besides IDLE_DAEMON. Still never the built-in agent (its code,
 * the AI and MCP SDKs), the web UI's bundle (read when a browser asks), the OpenAPI generator (built
 * when /openapi.json is asked for), the export renderer (the first export), the ACP SDK (loaded with
 * the first agent child), the agent installer or the trust command.
 */
export const BUILT_CORE: readonly Allowed[] = [
  { module: "src/server/", reason: "the HTTP app: routes, schemas, status and the core's wiring" },
  { module: "src/sessions/", reason: "the session manager and what a session is made of", except: ["src/sessions/transcript-export.ts"] },
  { module: "src/runtime/", reason: "agent children: spawn, ACP channel (its SDK loads with the first child), wedge and budget watches" },
  { module: "src/events/", reason: "event buses, replay rings and subscriber queues", except: ["src/events/event-schemas.ts"] },
  { module: "src/workspace/", reason: "the file routes and the workspace status cells" },
  { module: "src/store/", reason: "the journal and catalog: built with the core (its API is synchronous; it opens svc.db on first use)" },
  { module: "src/workspace-registry/", reason: "registered workspaces and runtime stop: the persistent registrations load with the core (no child starts)" },
  { module: "src/config/agent-args.ts", reason: "the arguments the built-in agent child is started with" },
  { module: "src/config/search-path.ts", reason: "finding an agent's program on PATH" },
  { module: "src/config/hooks-config.ts", reason: "the hook events and bounds the hook routes' schemas and idle listing name (no settings read)" },
  { module: "src/config/languages.ts", reason: "the language codes the language routes' body schema accepts" },
  { module: "src/config/skill-settings.ts", reason: "how skill toggles compare names and how many skills.disabled holds, as the agent reads it" },
  { module: "src/web/index.html", reason: "the web UI's HTML import: the list of its embedded files, read when a browser asks" },
  { module: "asset:docs", reason: "the /docs page's HTML, CSS and JS (text imports of routes/docs.ts)" },
  { module: "node_modules/elysia/", reason: "the router and validators of the HTTP app" },
  { module: "node_modules/@sinclair/typebox/", reason: "request and response schemas" },
  { module: "node_modules/memoirist/", reason: "Elysia's router; also the strict-route table" },
  { module: "node_modules/exact-mirror/", reason: "Elysia's response normalisation" },
  { module: "node_modules/fast-decode-uri-component/", reason: "Elysia's path parameter decoding" },
  { module: "node_modules/cookie/", reason: "imported by Elysia (no route reads cookies)" },
  { module: "node_modules/ignore/", reason: ".gitignore rules of the file routes" },
];

/** Whether `module` (a manifest path) is admitted by `list`. */
export const admitted = (list: readonly Allowed[], module: string) =>
  list.some((a) => (a.module.endsWith("/") ? module.startsWith(a.module) && !a.except?.includes(module) : module === a.module));
