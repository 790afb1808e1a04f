/**
 * The secret key the user signed in with, kept in this tab's sessionStorage:
 * gone when the tab closes or the user signs out, never sent anywhere but
 * this origin's API. docs/dashboard.md explains why not a cookie.
 */
const KEY = 'paywalld.secretKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function rememberKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}
