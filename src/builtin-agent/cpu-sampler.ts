/**
 * The agent process's CPU use for `svc/status/workspace/resource`: percent of one core between two
 * calls (the first call: since the sampler was made, at the agent's start). The daemon asks every
 * few seconds.
 */
export function cpuSampler(): () => number {
  let lastCpu = process.cpuUsage();
  let lastAt = performance.now();
  return () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const elapsedMs = now - lastAt;
    lastCpu = process.cpuUsage();
    lastAt = now;
    return elapsedMs > 0 ? Math.round(((cpu.user + cpu.system) / 10 / elapsedMs) * 10) / 10 : 0;
  };
}
