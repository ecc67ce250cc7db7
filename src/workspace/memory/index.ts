/**
 * The instruction files agents live by (`memory-files.ts`: which, where, in what order, bounded) and
 * their write (`memory-write.ts`). The seam the daemon's memory routes load on first use; the
 * built-in agent reads them for its system prompt.
 */
export { listMemory, loadMemory, MEMORY_FILENAMES, type LoadedMemory, type MemoryFile, type MemoryProblem, type MemoryScope, type MemoryWhere } from "./memory-files.ts";
export { writeMemory, type MemoryWriteMode, type MemoryWriteResult } from "./memory-write.ts";
