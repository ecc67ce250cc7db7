/** The bench's sections, and which of them a run measures. */
export const SECTIONS = ["startup", "version", "rss", "throughput", "sessions", "events", "files", "journal", "web", "agent"] as const;
export type Section = (typeof SECTIONS)[number];

/** What `--quick` runs unless `--only` says otherwise: the figures issue 23's targets speak of, in under a minute. */
export const QUICK_SECTIONS: readonly Section[] = ["startup", "version", "rss", "throughput", "events", "journal", "agent"];

/**
 * The sections to run, in the bench's order: those `--only` names (repeatable or comma-separated),
 * else the quick set or all of them. Throws on a name that is not a section.
 */
export function pickSections(only: readonly string[], quick: boolean): Section[] {
  const names = only.flatMap((v) => v.split(",")).map((v) => v.trim());
  for (const name of names)
    if (!(SECTIONS as readonly string[]).includes(name)) throw new Error(`--only: ${JSON.stringify(name)} is not one of ${SECTIONS.join(", ")}`);
  if (names.length > 0) return SECTIONS.filter((s) => names.includes(s));
  return quick ? [...QUICK_SECTIONS] : [...SECTIONS];
}
