/** A projects row as both backends read it back, and the project it is. */
import type { Project } from './store.ts';

export interface ProjectRow {
  id: string;
  name: string;
  created_at: number;
}

export function toProject(row: ProjectRow): Project {
  return { id: row.id, name: row.name, created_at: new Date(row.created_at).toISOString() };
}
