/**
 * Every cap of the workspace file routes, in one place: the route schemas advertise them and the
 * readers, writers and walkers enforce them. Each says what happens at the cap.
 */

/** Largest file `/file` returns whole; a bigger one needs a window (`line`/`limit`/`maxBytes`), else 413. */
export const TEXT_READ_CAP_BYTES = 256 * 1024;
/** A windowed read of a bigger file scans at most this prefix for lines; a window beyond it is 413. */
export const LINE_SCAN_CAP_BYTES = 8 * 1024 * 1024;
/** `/file` `limit`: most lines one window returns. */
export const MAX_LINE_LIMIT = 2000;

/** `/file/bytes` window size: default and maximum (a larger request is 400). */
export const DEFAULT_BYTES_WINDOW = 64 * 1024;
export const MAX_BYTES_WINDOW = 256 * 1024;

/** Largest content `/file/write` and `/file/edit` write, and largest file they replace (else 413). */
export const WRITE_CAP_BYTES = 5 * 1024 * 1024;

/** `/list` returns at most this many entries, then says `truncated`. */
export const LIST_ENTRY_CAP = 2000;

/** `/glob` `maxResults`: default and maximum; matches past it are not collected (`truncated`). */
export const DEFAULT_GLOB_RESULTS = 5000;
export const MAX_GLOB_RESULTS = 50_000;
/** A glob stops (with `truncated`) after examining this many directory entries, bounding its time. */
export const GLOB_SCAN_ENTRY_CAP = 1_000_000;
/** Directories deeper than this below the glob's start are not entered (the result says `truncated`). */
export const MAX_WALK_DEPTH = 64;

/** A request path longer than PATH_MAX, or with a segment longer than NAME_MAX, is refused up front. */
export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;
