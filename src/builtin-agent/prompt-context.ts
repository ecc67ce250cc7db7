/**
 * What the built-in agent's system prompt says besides its fixed rules (`system-prompt.ts`), read
 * at the start of each turn: the instruction files (the enabled extensions' (`extensions/`), then
 * `workspace/memory/`: the user's, then the project's from the repository root down to the
 * workspace; none of the project's in an untrusted workspace), the environment (OS, date, git branch and a status summary), and the language to
 * answer in (the session's, else the user's setting, `config/user-language.ts`), and the skills the
 * model may load (`skills/`: enabled and model-invocable ones, name and description).
 *
 * Git runs (in a trusted workspace only) through the read-only views (`workspace/git/`: no program the repository chose runs),
 * each run bounded by GIT_RUN_TIMEOUT_MS; its summary is kept GIT_SUMMARY_TTL_MS, so a session of
 * quick turns does not start git at each one.
 */
import { arch, release } from "node:os";
import { readUserLanguage } from "../config/user-language.ts";
import { gitProcessRunner } from "../runtime/git-process.ts";
import { GitViews } from "../workspace/git/index.ts";
import { loadMemory, type LoadedMemory } from "../workspace/memory/index.ts";
import { extensionContextFiles } from "../extensions/extension-contributions.ts";
import { invocable, type Skills } from "./skills/index.ts";

const GIT_RUN_TIMEOUT_MS = 2000;
/** As the daemon's git views, git is not run in an untrusted workspace (it reads the repository's config). */
const UNTRUSTED_GIT = "not read (the workspace is not trusted)";
export const GIT_SUMMARY_TTL_MS = 10_000;

export interface PromptContext {
  readonly memory: readonly LoadedMemory[];
  readonly environment: readonly string[];
  /** The output language (a full name or `auto`); null: none set. */
  readonly outputLanguage: string | null;
  /** The skills offered to the model (the `skill` tool loads one). */
  readonly skills: readonly { readonly name: string; readonly description: string }[];
}

export interface PromptSources {
  readonly workspace: string;
  readonly dataDir: string;
  readonly trusted: () => boolean;
  /** The environment commands get (PATH's absolute entries only): where `git` is looked for. */
  readonly shellEnv: Readonly<Record<string, string>>;
  readonly skills?: Skills;
}

/** The git line: branch and counts, "not a repository", or why it is unknown. */
async function gitSummary(views: GitViews, cwd: string): Promise<string> {
  try {
    const s = await views.status(cwd);
    if (s.branch === null) return "not a git repository (or git is not installed)";
    const counts = [`${s.staged ?? 0} staged`, `${s.unstaged ?? 0} unstaged`, `${s.untracked ?? 0} untracked`, ...(s.conflicted ? [`${s.conflicted} conflicted`] : [])];
    const upstream = s.hasUpstream ? `; ${s.ahead ?? 0} ahead, ${s.behind ?? 0} behind its upstream` : "";
    return `branch ${s.branch}${s.detached ? " (detached HEAD)" : ""}; ${counts.join(", ")}${upstream}${s.operation ? `; a ${s.operation} is in progress` : ""}`;
  } catch (err) {
    return `unknown (${(err as Error).message})`;
  }
}

/** Reads the context of each turn; one per agent (the git summary is shared by its sessions). */
export class PromptContextReader {
  private readonly views: GitViews;
  private git: { at: number; line: Promise<string> } | null = null;

  constructor(private readonly sources: PromptSources) {
    this.views = new GitViews({ root: sources.workspace, baseEnv: sources.shellEnv, runner: (path, env) => gitProcessRunner(path, env, GIT_RUN_TIMEOUT_MS) });
  }

  private gitLine(): Promise<string> {
    const now = Date.now();
    if (!this.git || now - this.git.at > GIT_SUMMARY_TTL_MS) this.git = { at: now, line: gitSummary(this.views, this.sources.workspace) };
    return this.git.line;
  }

  /** `sessionLanguage`: the session's own output language, which wins over the user's setting. */
  async read(sessionLanguage: string | null): Promise<PromptContext> {
    const { workspace, dataDir } = this.sources;
    const trusted = this.sources.trusted();
    const [memory, git] = await Promise.all([loadMemory({ workspace, dataDir, trusted }), trusted ? this.gitLine() : UNTRUSTED_GIT]);
    const environment = [`OS: ${process.platform} ${release()} (${arch()})`, `Date: ${new Date().toDateString()}`, `Git: ${git}`];
    const skills = this.sources.skills ? invocable(this.sources.skills.catalog()).map(({ name, description }) => ({ name, description })) : [];
    const extensions: LoadedMemory[] = extensionContextFiles(dataDir).map(({ path, text, bytes, truncated }) => ({ kind: "memory_file", path, scope: "global", bytes, text, truncated }));
    return { memory: [...extensions, ...memory.files], environment, outputLanguage: sessionLanguage ?? readUserLanguage(dataDir)?.outputLanguage ?? null, skills };
  }
}
