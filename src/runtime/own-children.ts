/**
 * The daemon's own short-lived children that lead a session of their own (its git runs,
 * `git-process.ts`), from their spawn until they were waited for. A child subreaper's sweep
 * (`agent-family.ts`) takes any child in another session that nobody owns for an orphan it adopted
 * and reaps it once it is a zombie; one of these reaped there would leave its spawner's wait with
 * ECHILD instead of its exit status.
 */
export const ownChildren = new Set<number>();
