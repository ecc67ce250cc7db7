/** Polls `condition` until it returns a truthy value or `timeoutMs` passes (then throws). */
export async function until<T>(condition: () => T | Promise<T>, timeoutMs = 5000, what = "condition"): Promise<NonNullable<Awaited<T>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<Awaited<T>>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(10);
  }
}
