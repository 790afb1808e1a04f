/**
 * What this tab remembers of who is signed in. A person's session is an
 * HttpOnly cookie this code never sees; the project they last chose is kept
 * in localStorage. A secret key (the secondary way in, for automation and
 * the first minutes) is kept in this tab's sessionStorage with its project:
 * gone when the tab closes or the user signs out, never sent anywhere but
 * this origin's API. docs/guide/dashboard.md explains why.
 */
const KEY = 'paywalld.secretKey';
const KEY_PROJECT = 'paywalld.keyProject';
const PROJECT = 'paywalld.project';

export function storedKey(): { key: string; projectId: string } | null {
  const key = sessionStorage.getItem(KEY);
  return key === null ? null : { key, projectId: sessionStorage.getItem(KEY_PROJECT) ?? '' };
}

export function rememberKey(key: string, projectId: string): void {
  sessionStorage.setItem(KEY, key);
  sessionStorage.setItem(KEY_PROJECT, projectId);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(KEY_PROJECT);
}

export function chosenProject(): string | null {
  return localStorage.getItem(PROJECT);
}

export function chooseProject(projectId: string): void {
  localStorage.setItem(PROJECT, projectId);
}
