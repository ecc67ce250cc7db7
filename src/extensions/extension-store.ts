/**
 * The installed extensions: `<data dir>/extensions/<name>/`, each a copy of its source with the
 * manifest (`extension-manifest.ts`) and svc's record of it, `.svc-extension.json`
 * `{v: 1, source: {type: "local", path}, installedAt, enabled}`. The folder's name is the
 * extension's; a folder that is a link, lacks a readable manifest, or whose manifest names
 * another extension is reported as a problem and not used. At most MAX_EXTENSIONS are read.
 * Read at each use (the built-in agent and the daemon each read the same folders).
 */
import { opendirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { readSmallFileSync } from "../workspace/contained-fs.ts";
import { MANIFEST_FILE, MAX_MANIFEST_BYTES, parseManifest, validExtensionName, type ExtensionManifest } from "./extension-manifest.ts";

export const MAX_EXTENSIONS = 64;
export const RECORD_FILE = ".svc-extension.json";
const MAX_RECORD_BYTES = 16 * 1024;

/** Where an installed extension came from: a local folder (its path) or a registry package (`@scope/name@version`, with the integrity it matched). */
export type ExtensionSource = { readonly type: "local"; readonly path: string } | { readonly type: "npm"; readonly path: string; readonly integrity: string };

export interface ExtensionRecord {
  readonly v: 1;
  readonly source: ExtensionSource;
  readonly installedAt: string;
  readonly enabled: boolean;
}

export interface InstalledExtension {
  readonly name: string;
  /** The installed copy (absolute, resolved). */
  readonly path: string;
  readonly manifest: ExtensionManifest;
  readonly record: ExtensionRecord;
}

export interface ExtensionProblem {
  readonly name: string;
  readonly error: string;
}

export const extensionsDir = (dataDir: string) => join(dataDir, "extensions");

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function readRecord(path: string): ExtensionRecord | null {
  const bytes = readSmallFileSync(path, path, RECORD_FILE, MAX_RECORD_BYTES);
  if (bytes === null) return null;
  try {
    const doc = JSON.parse(bytes.toString("utf8")) as { v?: unknown; enabled?: unknown; installedAt?: unknown; source?: { type?: unknown; path?: unknown; integrity?: unknown } } | null;
    if (doc?.v !== 1 || typeof doc.enabled !== "boolean" || typeof doc.installedAt !== "string" || typeof doc.source?.path !== "string") return null;
    const { type, path, integrity } = doc.source;
    let source: ExtensionSource;
    if (type === "local") source = { type, path };
    else if (type === "npm" && typeof integrity === "string") source = { type, path, integrity };
    else return null;
    return { v: 1, source, installedAt: doc.installedAt, enabled: doc.enabled };
  } catch {
    return null;
  }
}

/** One installed extension by its folder name, or the reason it cannot be used. */
export function readExtension(dataDir: string, name: string): InstalledExtension | ExtensionProblem {
  if (!validExtensionName(name)) return { name, error: "not an extension name" };
  const path = real(join(extensionsDir(dataDir), name));
  const base = real(extensionsDir(dataDir));
  if (path === null || base === null || path !== join(base, name)) return { name, error: "the folder is missing or is a link" };
  const bytes = readSmallFileSync(path, path, MANIFEST_FILE, MAX_MANIFEST_BYTES + 1);
  if (bytes === null) return { name, error: `${MANIFEST_FILE} is missing` };
  if (bytes.length > MAX_MANIFEST_BYTES) return { name, error: `${MANIFEST_FILE} is larger than ${MAX_MANIFEST_BYTES} bytes` };
  let manifest: ExtensionManifest;
  try {
    manifest = parseManifest(bytes.toString("utf8"), path);
  } catch (err) {
    return { name, error: (err as Error).message };
  }
  if (manifest.name !== name) return { name, error: `the manifest names "${manifest.name}"` };
  const record = readRecord(path);
  if (record === null) return { name, error: `${RECORD_FILE} is missing or malformed (install it again)` };
  return { name, path, manifest, record };
}

export const isInstalled = (e: InstalledExtension | ExtensionProblem): e is InstalledExtension => "manifest" in e;

/** Every installed extension (sorted by name) and the folders that are not usable ones. */
export function listExtensions(dataDir: string): { extensions: InstalledExtension[]; problems: ExtensionProblem[] } {
  const extensions: InstalledExtension[] = [];
  const problems: ExtensionProblem[] = [];
  let handle;
  try {
    handle = opendirSync(extensionsDir(dataDir));
  } catch {
    return { extensions, problems };
  }
  const names: string[] = [];
  try {
    for (let entry = handle.readSync(); entry !== null && names.length < MAX_EXTENSIONS; entry = handle.readSync()) if (!entry.name.startsWith(".")) names.push(entry.name);
  } finally {
    handle.closeSync();
  }
  for (const name of names.sort()) {
    const found = readExtension(dataDir, name);
    if (isInstalled(found)) extensions.push(found);
    else problems.push(found);
  }
  return { extensions, problems };
}

/** The enabled extensions (those whose skills, instruction files and MCP servers count). */
export const enabledExtensions = (dataDir: string) => listExtensions(dataDir).extensions.filter((e) => e.record.enabled);
