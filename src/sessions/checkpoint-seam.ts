/**
 * The sessions' door to the checkpoints (`src/checkpoints/`), loaded on the first turn that starts
 * (an idle daemon never loads it). The checkpoints are the daemon's, shared by every session; each
 * session reaches them through `forSession`. A checkpoint that fails is logged and never fails the
 * turn: the turn's files are then not restorable, and the snapshots list says so.
 */
import { join } from "node:path";
import type { Checkpoints, CheckpointStatus } from "../checkpoints/index.ts";
import type { Logger } from "../logging/logger.ts";
import { childEnv } from "../runtime/child-env.ts";

export interface CheckpointSettings {
  readonly dataDir: string;
  readonly maxBytes: number;
  /** The daemon's environment for the git runs (scrubbed again by them). */
  readonly baseEnv: Readonly<Record<string, string>>;
}

/** What one session's turns tell the checkpoints. */
export interface SessionCheckpoints {
  turnStarted(promptId: string): Promise<void>;
  turnFinished(promptId: string): Promise<void>;
  beforeWrite(path: string): Promise<boolean>;
}

export class CheckpointSeam {
  private loading: Promise<Checkpoints> | null = null;
  private loaded: Checkpoints | null = null;
  /** Per session, a rewind in progress: a turn that starts meanwhile waits for it before reaching the agent. */
  private readonly holds = new Map<string, Promise<unknown>>();

  constructor(
    private readonly settings: CheckpointSettings,
    private readonly logger: Logger,
  ) {}

  /** The checkpoints, loaded (and their folder emptied) on first use. */
  load(): Promise<Checkpoints> {
    this.loading ??= Promise.all([import("../checkpoints/index.ts"), import("../runtime/git-process.ts")]).then(([cp, git]) => {
      const baseEnv = childEnv(this.settings.baseEnv);
      this.loaded = new cp.Checkpoints({
        dir: join(this.settings.dataDir, "checkpoints"),
        maxBytes: this.settings.maxBytes,
        gitHost: (root) => ({ root, baseEnv, runner: (path, env) => git.gitProcessRunner(path, env) }),
        logger: this.logger,
      });
      return this.loaded;
    });
    return this.loading;
  }

  /** Counts for `/daemon/status` (zeros before the first turn; nothing is loaded for them). */
  status(): CheckpointStatus {
    return this.loaded?.status() ?? { bytes: 0, count: 0, evictions: 0, maxBytes: this.settings.maxBytes, turns: 0 };
  }

  /** Runs `work` (a rewind of `sessionId`) while the session's next turn waits. */
  async holding<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const done = work();
    const hold = done.then(
      () => {},
      () => {},
    );
    this.holds.set(sessionId, hold);
    try {
      return await done;
    } finally {
      if (this.holds.get(sessionId) === hold) this.holds.delete(sessionId);
    }
  }

  /** Whether the session has a turn whose end is not recorded yet. */
  isRunning(sessionId: string): boolean {
    return this.loaded?.isRunning(sessionId) ?? false;
  }

  forSession(sessionId: string, root: string): SessionCheckpoints {
    const guarded = async <T>(what: string, fallback: T, run: (c: Checkpoints) => Promise<T>): Promise<T> => {
      try {
        return await run(await this.load());
      } catch (err) {
        this.logger.warn(`checkpoint ${what} failed`, { sessionId, error: err instanceof Error ? err.message : String(err) });
        return fallback;
      }
    };
    return {
      turnStarted: async (promptId) => {
        await this.holds.get(sessionId);
        await guarded("of the turn's start", undefined, (c) => c.turnStarted(sessionId, root, promptId));
      },
      turnFinished: (promptId) => guarded("of the turn's end", undefined, (c) => c.turnFinished(sessionId, promptId)),
      beforeWrite: (path) => guarded("before a write", false, (c) => c.beforeWrite(sessionId, path)),
    };
  }
}
