/** The files browser: a lazily expanded tree of the workspace, and a viewer for the chosen file. */
import { useEffect, useState } from "preact/hooks";
import type { DirectoryEntry, FileText } from "../../client/index.ts";
import { client, describe, guard, reportAuth } from "../app-state.ts";
import { go } from "../route.ts";
import { workspaceOption } from "../workspaces.ts";
import { BoundedText } from "./long-text.tsx";

const join = (dir: string, name: string) => (dir === "." ? name : `${dir}/${name}`);
const fileHash = (path: string) => `#/files/${path.split("/").map(encodeURIComponent).join("/")}`;

export function FilesView({ path }: { path: string | undefined }) {
  return (
    <div class="files">
      <nav class="card file-tree-wrap" aria-label="File tree">
        <ul role="tree" aria-label="Files" class="file-tree">
          <Folder dir="." depth={1} selected={path} />
        </ul>
      </nav>
      <FileViewer path={path} />
    </div>
  );
}

function Folder({ dir, depth, selected }: { dir: string; depth: number; selected: string | undefined }) {
  const [entries, setEntries] = useState<DirectoryEntry[] | null>(null);
  const [truncated, setTruncated] = useState(false);
  useEffect(() => {
    void guard(() => client.listDirectory(dir, false, workspaceOption())).then((listing) => {
      if (!listing) return;
      const sorted = [...listing.entries].sort((a, b) => Number(b.kind === "directory") - Number(a.kind === "directory") || a.name.localeCompare(b.name));
      setEntries(sorted);
      setTruncated(listing.truncated);
    });
  }, [dir]);
  if (entries === null) return <li class="empty">Loading…</li>;
  return (
    <>
      {entries.length === 0 && <li class="empty">{dir === "." ? "The workspace folder is empty." : "Empty folder."}</li>}
      {entries.map((e) =>
        e.kind === "directory" ? (
          <FolderItem key={e.name} path={join(dir, e.name)} name={e.name} depth={depth} selected={selected} />
        ) : (
          <li key={e.name} role="treeitem" aria-level={depth} aria-selected={selected === join(dir, e.name)} class="file-item">
            <a href={fileHash(join(dir, e.name))} class={e.ignored ? "ignored" : ""}>
              {e.name}
            </a>
          </li>
        ),
      )}
      {truncated && <li class="empty">(listing truncated)</li>}
    </>
  );
}

function FolderItem({ path, name, depth, selected }: { path: string; name: string; depth: number; selected: string | undefined }) {
  const [open, setOpen] = useState(Boolean(selected?.startsWith(`${path}/`)));
  return (
    <li role="treeitem" aria-level={depth} aria-expanded={open} class="folder-item">
      <button type="button" class="folder" onClick={() => setOpen(!open)}>
        {open ? "▾" : "▸"} {name}
      </button>
      {open && (
        <ul role="group">
          <Folder dir={path} depth={depth + 1} selected={selected} />
        </ul>
      )}
    </li>
  );
}

function FileViewer({ path }: { path: string | undefined }) {
  const [file, setFile] = useState<FileText | { error: string } | null>(null);
  useEffect(() => {
    setFile(null);
    if (!path) return;
    client.readFile(path, workspaceOption()).then(setFile, (error) => {
      reportAuth(error);
      setFile({ error: describe(error) });
    });
  }, [path]);
  return (
    <section class="card viewer" role="region" aria-label="File viewer">
      {!path ? (
        <p class="empty">Choose a file in the tree to read it here.</p>
      ) : (
        <>
          <h2>{path}</h2>
          {file === null ? (
            <p class="empty">Loading…</p>
          ) : "error" in file ? (
            <p role="alert">{file.error}</p>
          ) : (
            <>
              {file.truncated && <p class="hint">Showing the first {file.returnedBytes} of {file.sizeBytes} bytes.</p>}
              <pre class="file-text">
                <BoundedText text={file.content} plain />
              </pre>
            </>
          )}
        </>
      )}
      {path && (
        <button type="button" class="quiet" onClick={() => go("#/files")}>
          Close file
        </button>
      )}
    </section>
  );
}
