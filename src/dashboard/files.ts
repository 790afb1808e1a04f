import type { DashboardFile } from './build-ui.mjs';

/**
 * The dashboard's files. From the sources (tests, `tsx`), they are built from
 * ui/ in memory on first use. build.mjs replaces this module in the bundle
 * with one that returns the files it built ahead of time, so the bundle and
 * the single executable carry every asset inside and need esbuild at no time.
 */
export async function loadDashboardFiles(): Promise<DashboardFile[]> {
  const { buildUi } = await import('./build-ui.mjs');
  return buildUi();
}
