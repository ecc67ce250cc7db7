/**
 * `/file/write` and `/file/edit`. Every write is atomic: the new bytes go to a temp file in the
 * target's own directory, which then replaces the target (`rename`) or is linked into place for a
 * create (`link`, which fails if anything, even a dangling symlink, appeared at the name). Writers
 * of one path are serialized by `PathLocks`, and a replace re-checks the expected hash immediately
 * before its rename, so of several writers holding the same hash exactly one wins.
 *
 * The temp file is created, and renamed or linked, through the target directory's verified
 * descriptor (`VerifiedDir`), so a directory swapped for a symlink meanwhile cannot make any of
 * these steps land outside the workspace.
 */
import { constants } from "node:fs";
import { link, rename, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { FsError } from "../errors/daemon-error.ts";
import { contentHash } from "./content-hash.ts";
import { openContained, openVerifiedDir, resolveExisting, resolveForCreate, type VerifiedDir } from "./contained-fs.ts";
import { openRegularReal, readAt } from "./file-reader.ts";
import { WRITE_CAP_BYTES } from "./file-limits.ts";
import { fromErrno, hashMismatch, parseError, shownPath } from "./fs-errors.ts";
import { IgnoreRules, type IgnoreMatch } from "./ignore-rules.ts";
import type { PathLocks } from "./path-locks.ts";
import { parentOf } from "./paths.ts";
import { applySingleEdit } from "./text-edit.ts";
import { decodeText, detectLineEnding, encodeText, withLineEnding, type LineEnding, type TextEncodingName } from "./text-codec.ts";

/**
 * A created file gets 0666 narrowed by the process's umask (0644 under the usual 022), as an editor
 * or the shell would create it: open(2) applies the umask to its temp file, which becomes the file.
 * A replaced file keeps its mode; its temp stays owner-only until it takes that mode.
 */
const CREATE_MODE = 0o666;
const PRIVATE_MODE = 0o600;

export interface WriteRequest {
  readonly content: string;
  readonly mode: "create" | "replace";
  /** Required for `replace`. */
  readonly expectedHash?: string;
  readonly encoding?: TextEncodingName;
  readonly bom?: boolean;
  readonly lineEnding?: LineEnding;
}

export interface EditRequest {
  readonly oldText: string;
  readonly newText: string;
  readonly expectedHash: string;
}

interface Written {
  readonly path: string;
  readonly sizeBytes: number;
  readonly hash: string;
  readonly encoding: TextEncodingName;
  readonly bom: boolean;
  readonly lineEnding: LineEnding;
  readonly matchedIgnore: IgnoreMatch;
}

export interface WriteResult extends Written {
  readonly kind: "file_write";
  readonly mode: "create" | "replace";
  readonly created: boolean;
}

export interface EditResult extends Written {
  readonly kind: "file_edit";
  readonly replacements: 1;
}

const tooLarge = (what: string, bytes: number) =>
  new FsError(413, "file_too_large", `${what} of ${bytes} bytes exceeds write cap of ${WRITE_CAP_BYTES} bytes`);

/** Encodes content for writing, enforcing the cap and a BOM on UTF-16 (its only marker on read). */
function encodeForWrite(text: string, encoding: TextEncodingName, bom: boolean): Uint8Array {
  if (text.length > WRITE_CAP_BYTES) throw tooLarge("content", text.length); // every code unit takes at least a byte
  if (encoding !== "utf-8" && encoding !== "windows-1252" && !bom)
    throw parseError(`${encoding} files are written with a byte order mark`, "omit bom or send bom: true");
  const bytes = encodeText(text, encoding, bom);
  if (bytes.length > WRITE_CAP_BYTES) throw tooLarge("content", bytes.length);
  return bytes;
}

/** The current bytes and mode of existing regular file `rel`, resolved to `real` (at most the write cap). */
async function readCurrent(root: string, real: string, rel: string): Promise<{ bytes: Buffer; mode: number }> {
  const { handle, size } = await openRegularReal(root, real, rel);
  try {
    if (size > WRITE_CAP_BYTES) throw tooLarge("existing file", size);
    const mode = (await handle.stat()).mode & 0o7777;
    return { bytes: await readAt(handle, 0, size), mode };
  } catch (err) {
    throw fromErrno(err, rel);
  } finally {
    await handle.close();
  }
}

/**
 * Writes `bytes` to a fresh temp file in `dir`, flushed to disk; returns its path. Its mode: `mode`,
 * or with "umask" what the umask makes of CREATE_MODE.
 */
async function writeTemp(root: string, dir: VerifiedDir, rel: string, bytes: Uint8Array, mode: number | "umask"): Promise<string> {
  const temp = dir.entry(`.svc-write-${crypto.getRandomValues(Buffer.alloc(8)).toString("hex")}.tmp`);
  const handle = await openContained(root, temp, rel, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode === "umask" ? CREATE_MODE : PRIVATE_MODE);
  try {
    if (mode !== "umask" && mode !== PRIVATE_MODE) await handle.chmod(mode);
    await handle.writeFile(bytes);
    await handle.datasync();
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw fromErrno(err, rel);
  } finally {
    await handle.close();
  }
  return temp;
}

/** Replaces `real` with `bytes` if its content still hashes to `expectedHash` right before the rename. */
async function replaceAtomically(root: string, real: string, rel: string, bytes: Uint8Array, mode: number, expectedHash: string): Promise<void> {
  const dir = openVerifiedDir(root, dirname(real), parentOf(rel));
  try {
    const temp = await writeTemp(root, dir, rel, bytes, mode);
    try {
      const found = contentHash((await readCurrent(root, real, rel)).bytes);
      if (found !== expectedHash) throw hashMismatch(expectedHash, found);
      await rename(temp, dir.entry(basename(real)));
    } catch (err) {
      await unlink(temp).catch(() => {});
      throw fromErrno(err, rel);
    }
  } finally {
    dir.close();
  }
}

function written(root: string, rel: string, bytes: Uint8Array, encoding: TextEncodingName, bom: boolean, text: string): Written {
  return {
    path: shownPath(rel),
    sizeBytes: bytes.length,
    hash: contentHash(bytes),
    encoding,
    bom,
    lineEnding: detectLineEnding(text),
    matchedIgnore: new IgnoreRules(root).match(rel, false),
  };
}

async function createFile(root: string, locks: PathLocks, rel: string, request: WriteRequest): Promise<WriteResult> {
  const encoding = request.encoding ?? "utf-8";
  const bom = request.bom ?? (encoding === "utf-16le" || encoding === "utf-16be");
  const text = request.lineEnding === undefined ? request.content : withLineEnding(request.content, request.lineEnding);
  const bytes = encodeForWrite(text, encoding, bom);
  const { realParent, target } = await resolveForCreate(root, rel);
  return await locks.run(target, async () => {
    const dir = openVerifiedDir(root, realParent, parentOf(rel));
    try {
      const temp = await writeTemp(root, dir, rel, bytes, "umask");
      try {
        await link(temp, dir.entry(basename(target)));
      } catch (err) {
        throw fromErrno(err, rel);
      } finally {
        await unlink(temp).catch(() => {});
      }
    } finally {
      dir.close();
    }
    return { kind: "file_write", mode: "create", created: true, ...written(root, rel, bytes, encoding, bom, text) };
  });
}

/** Replaces `rel` after checking its hash; encoding, BOM and line endings default to the current file's. */
async function replaceFile(root: string, locks: PathLocks, rel: string, request: WriteRequest): Promise<WriteResult> {
  const expectedHash = request.expectedHash;
  if (expectedHash === undefined) throw parseError("expectedHash is required for mode replace", "read the file first and send its hash");
  const real = await resolveExisting(root, rel);
  return await locks.run(real, async () => {
    const current = await readCurrent(root, real, rel);
    const found = contentHash(current.bytes);
    if (found !== expectedHash) throw hashMismatch(expectedHash, found);
    const existing = decodeText(current.bytes);
    const encoding = request.encoding ?? existing?.encoding ?? "utf-8";
    const bom = request.bom ?? existing?.bom ?? (encoding === "utf-16le" || encoding === "utf-16be");
    // A current file without line breaks has no style to keep; the content's own is kept then.
    const lineEnding = request.lineEnding ?? (existing?.text.includes("\n") ? detectLineEnding(existing.text) : undefined);
    const text = lineEnding === undefined ? request.content : withLineEnding(request.content, lineEnding);
    const bytes = encodeForWrite(text, encoding, bom);
    await replaceAtomically(root, real, rel, bytes, current.mode, expectedHash);
    return { kind: "file_write", mode: "replace", created: false, ...written(root, rel, bytes, encoding, bom, text) };
  });
}

export async function writeFile(root: string, locks: PathLocks, rel: string, request: WriteRequest): Promise<WriteResult> {
  if (rel === "") throw parseError("path must name a file");
  return request.mode === "create" ? await createFile(root, locks, rel, request) : await replaceFile(root, locks, rel, request);
}

/** A quoted, shortened form of searched text for hints. */
const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

export async function editFile(root: string, locks: PathLocks, rel: string, request: EditRequest): Promise<EditResult> {
  if (rel === "") throw parseError("path must name a file");
  const real = await resolveExisting(root, rel);
  return await locks.run(real, async () => {
    const current = await readCurrent(root, real, rel);
    const found = contentHash(current.bytes);
    if (found !== request.expectedHash) throw hashMismatch(request.expectedHash, found);
    const existing = decodeText(current.bytes);
    if (existing === null) throw new FsError(422, "binary_file", `file appears to be binary: ${shownPath(rel)}`, "binary files cannot be edited as text");
    const outcome = applySingleEdit(existing.text, request.oldText, request.newText, detectLineEnding(existing.text));
    if (outcome.kind === "not_found")
      throw new FsError(422, "text_not_found", "oldText was not found in the file", `no exact match for ${quoted(request.oldText)}; re-read the file and copy the text exactly`);
    if (outcome.kind === "ambiguous")
      throw new FsError(422, "ambiguous_text_match", `oldText occurs ${outcome.occurrences} times in the file`, "include more surrounding text so it matches exactly once");
    const bytes = encodeForWrite(outcome.text, existing.encoding, existing.bom);
    await replaceAtomically(root, real, rel, bytes, current.mode, request.expectedHash);
    return { kind: "file_edit", replacements: 1, ...written(root, rel, bytes, existing.encoding, existing.bom, outcome.text) };
  });
}
