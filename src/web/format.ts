/** How the UI words times, durations and dates (pure). */

/** `850 ms`, `4.2 s`, `12 s`, `3 min 4 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 10) return `${(ms / 1000).toFixed(1)} s`;
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** The list group a time falls in, seen from `now`: Today, Yesterday, Previous 7 days, Previous 30 days, Older. */
export function dateGroup(at: number, now: number): string {
  const day = (t: number) => {
    const d = new Date(t);
    return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  };
  const days = Math.round((day(now) - day(at)) / 86_400_000);
  if (days <= 0) return "Today";
  if (days === 1) return "Yesterday";
  if (days < 7) return "Previous 7 days";
  if (days < 30) return "Previous 30 days";
  return "Older";
}

/** The last part of a path (a folder's name), or the path itself. */
export const baseName = (path: string) => path.replace(/\/+$/, "").split("/").pop() || path;
