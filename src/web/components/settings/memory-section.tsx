/**
 * Memory: the instruction files the daemon lists (path, user or project, size), one shown on
 * request, and the two files the daemon's strict write route edits: the project's `AGENTS.md`
 * (read through `/file`, replaced as a whole) and the user's (in the data dir, which no route
 * reads: added to, never replaced blind). A project file that changed on disk since it was
 * opened is a conflict: the save stops and says so, and the user reloads or overwrites.
 */
import { useState } from "preact/hooks";
import { DaemonApiError, type FileText, type MemoryFile, type MemoryStatus } from "../../../client/index.ts";
import { client } from "../../app-state.ts";
import { visibleText } from "../../visible-text.ts";
import { Visible } from "../visible-text.tsx";
import { attempt, failure, formatBytes, LoadedView, OutcomeLine, Section, useLoad, type Outcome, StatusErrors } from "./shared.tsx";

/** The project file the write route edits, relative to the workspace. */
const PROJECT_FILE = "AGENTS.md";

export function MemorySection() {
  const [state, reload] = useLoad(() => client.memory());
  return (
    <Section id="memory" title="Memory">
      <LoadedView state={state} what="Memory">
        {(body) => (
          <>
            <MemoryFiles body={body} />
            <ProjectEditor cwd={body.workspaceCwd} onSaved={reload} />
            <UserAppend onSaved={reload} />
          </>
        )}
      </LoadedView>
    </Section>
  );
}

/** The path relative to the workspace when the file is inside it (then `/file` can read it). */
function inside(cwd: string, path: string): string | undefined {
  const root = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return path.startsWith(root) ? path.slice(root.length) : undefined;
}

function MemoryFiles({ body }: { body: MemoryStatus }) {
  const [shown, setShown] = useState<{ path: string; text: FileText | null; error?: string } | null>(null);
  async function view(file: MemoryFile) {
    const rel = inside(body.workspaceCwd, file.path);
    if (rel === undefined) return setShown({ path: file.path, text: null, error: "This file is outside the workspace; the daemon serves no read of it." });
    try {
      setShown({ path: file.path, text: await client.readFile(rel) });
    } catch (error) {
      setShown({ path: file.path, text: null, error: failure(error) });
    }
  }
  return (
    <>
      <p class="hint">
        {body.fileCount} {body.fileCount === 1 ? "file" : "files"}, {formatBytes(body.totalBytes)}, in the order the agent reads them.
      </p>
      {body.files.length === 0 ? (
        <p class="empty">No instruction file found.</p>
      ) : (
        <ul class="settings-list" aria-label="Memory files">
          {body.files.map((f) => (
            <li key={f.path} class="settings-row">
              <span class="settings-name">
                <Visible text={f.path} />
              </span>
              <span class="settings-meta">
                {f.scope === "global" ? "user" : "project"} · {formatBytes(f.bytes)}
              </span>
              <button type="button" onClick={() => void view(f)}>
                View<span class="visually-hidden"> {visibleText(f.path)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <StatusErrors errors={body.errors} />
      {shown && (
        <div class="settings-viewer" role="region" aria-label="Memory file">
          <p class="settings-name">
            <Visible text={shown.path} />
            {shown.text?.truncated && " (shown in part)"}
          </p>
          {shown.error ? (
            <p role="alert" class="settings-error">
              {shown.error}
            </p>
          ) : (
            <pre class="settings-pre">
              <Visible text={shown.text?.content ?? ""} multiline blanks />
            </pre>
          )}
          <button type="button" onClick={() => setShown(null)}>
            Close
          </button>
        </div>
      )}
    </>
  );
}

/** The project file as opened (or as last saved from here): its text, null when there was none. */
type Opened = { content: string | null };

async function readProject(): Promise<Opened> {
  try {
    const file = await client.readFile(PROJECT_FILE);
    if (file.truncated) throw new Error(`${PROJECT_FILE} is too large to edit here (${formatBytes(file.sizeBytes)}).`);
    return { content: file.content };
  } catch (error) {
    if (error instanceof DaemonApiError && error.status === 404) return { content: null };
    throw error;
  }
}

function ProjectEditor({ cwd, onSaved }: { cwd: string; onSaved: () => void }) {
  const [opened, setOpened] = useState<Opened | null>(null);
  const [draft, setDraft] = useState("");
  const [conflict, setConflict] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  async function open() {
    setOutcome(null);
    setConflict(false);
    try {
      const file = await readProject();
      setOpened(file);
      setDraft(file.content ?? "");
    } catch (error) {
      setOutcome({ ok: false, text: failure(error) });
    }
  }

  async function save(overwrite: boolean) {
    if (!opened) return;
    setBusy(true);
    try {
      if (!overwrite) {
        let now: Opened;
        try {
          now = await readProject();
        } catch (error) {
          return setOutcome({ ok: false, text: failure(error) });
        }
        if (now.content !== opened.content) {
          setConflict(true);
          return setOutcome({ ok: false, text: `${PROJECT_FILE} changed on disk since you opened it. Reload it to see the change, or overwrite it with your text.` });
        }
      }
      const done = await attempt(
        () => client.writeMemory({ scope: "workspace", mode: "replace", content: draft }),
        (a) => (a.changed ? `Saved ${a.filePath} (${formatBytes(a.bytesWritten)}).` : "No change to save."),
        "Saving memory",
        setOutcome,
      );
      if (done) {
        setConflict(false);
        // The daemon wrote `draft` as it is: that is the file a later save compares against.
        setOpened({ content: draft });
        onSaved();
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="settings-block">
      <h3>Project file</h3>
      <p class="hint">
        <Visible text={`${cwd.replace(/\/+$/, "")}/${PROJECT_FILE}`} />
      </p>
      {opened === null ? (
        <button type="button" onClick={() => void open()}>
          Edit project memory
        </button>
      ) : (
        <>
          <label class="settings-field">
            <span>Project memory ({PROJECT_FILE})</span>
            <textarea rows={10} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
          </label>
          <div class="settings-actions">
            <button type="button" class="primary" disabled={busy} onClick={() => void save(false)}>
              Save project memory
            </button>
            {conflict && (
              <>
                <button type="button" disabled={busy} onClick={() => void open()}>
                  Reload from disk
                </button>
                <button type="button" disabled={busy} onClick={() => void save(true)}>
                  Overwrite
                </button>
              </>
            )}
            <button type="button" disabled={busy} onClick={() => setOpened(null)}>
              Cancel
            </button>
          </div>
        </>
      )}
      <OutcomeLine outcome={outcome} />
    </div>
  );
}

/** The user's file lives in the data dir, which no route reads: text is added to it, under "## Added Memories". */
function UserAppend({ onSaved }: { onSaved: () => void }) {
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  async function add() {
    setBusy(true);
    const done = await attempt(
      () => client.writeMemory({ scope: "global", mode: "append", content: draft }),
      (a) => (a.changed ? `Added to ${a.filePath}.` : "Nothing to add."),
      "Adding to user memory",
      setOutcome,
    );
    setBusy(false);
    if (done) {
      setDraft("");
      onSaved();
    }
  }
  return (
    <div class="settings-block">
      <h3>User file</h3>
      <p class="hint">Your own AGENTS.md, read in every workspace. The daemon does not serve its text, so notes are added under “## Added Memories”.</p>
      <label class="settings-field">
        <span>Add to user memory</span>
        <textarea rows={3} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
      </label>
      <div class="settings-actions">
        <button type="button" disabled={busy || draft.trim() === ""} onClick={() => void add()}>
          Add to user memory
        </button>
      </div>
      <OutcomeLine outcome={outcome} />
    </div>
  );
}
