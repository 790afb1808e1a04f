/** Polls `condition` until it holds; fails after `ms`, naming what it waited for (no sleeps as synchronisation). */
export async function until(condition: () => boolean | Promise<boolean>, what = 'the condition', ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
