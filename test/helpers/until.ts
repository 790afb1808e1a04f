/**
 * Polls `condition` every `every` ms until it holds; fails after `ms`, naming what it waited for (no sleeps as
 * synchronisation). A wait of minutes polls less often, so as not to take CPU from what it waits for.
 */
export async function until(condition: () => boolean | Promise<boolean>, what = 'the condition', ms = 10_000, every = 10): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
