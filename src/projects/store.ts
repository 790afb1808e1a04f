/**
 * The projects a database holds. The interface every backend implements
 * (sqlite-store.ts; CONTRIBUTING.md, "The storage seam"): each method is
 * one transaction.
 */
import type { Change, ChangeEntry } from '../shared/change.ts';
import { isStorableText } from '../shared/text.ts';

export interface Project {
  id: string;
  name: string;
  created_at: string;
}

export interface CreatedProject {
  project: { id: string; name: string };
  keys: { sdk: string; secret: string };
  /** A first start's invitation of the first owner: its token (the link: accounts' invitationUrl), shown once. */
  invitation?: { token: string; expires_at: string };
}

const NAME = /^\S(.{0,98}\S)?$/u;

/** Refuses a name the store must not hold: 1 to 100 characters, no space at either end, well-formed text without NUL. */
export function requireProjectName(name: string): void {
  if (!NAME.test(name)) throw new Error('a project name is 1 to 100 characters and does not start or end with a space');
  if (!isStorableText(name)) throw new Error('a project name must be well-formed Unicode text without NUL (U+0000) or a lone surrogate');
}

export function projectCreated(project: { id: string; name: string }): ChangeEntry {
  return {
    project: project.id,
    action: 'project.created',
    target: { type: 'project', id: project.id },
    summary: `created project ${project.name} with an sdk and a secret key`,
  };
}

export interface ProjectStore {
  /** Creates a project with one sdk and one secret key and its audit entry, all in one transaction: a project is never left without its keys. */
  create(name: string, change: Change): Promise<CreatedProject>;
  /** Every project, oldest first (in creation order, even within one millisecond). */
  list(): Promise<Project[]>;
  get(id: string): Promise<Project | undefined>;
  isEmpty(): Promise<boolean>;
}
