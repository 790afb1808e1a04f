/** One file of the dashboard, as the server serves it under /dashboard/. */
export interface DashboardFile {
  /** Path under /dashboard/: `index.html`, or `assets/<name>-<hash>.<ext>`. */
  name: string;
  contentType: string;
  text: string;
}

export function buildUi(): Promise<DashboardFile[]>;
