import { useEffect, useState } from 'preact/hooks';

/**
 * Pages live in the URL's fragment (#/paywalls/onboarding), so the server
 * serves one index.html and reloading or sharing a link keeps the page.
 * null: the fragment is not valid percent-encoding (#/paywalls/%E0, a link
 * cut short), which no page has; decodeURIComponent would throw on every
 * render, and a blank page would survive reloads.
 */
function currentRoute(): string[] | null {
  const parts = location.hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '');
  try {
    return parts.map(decodeURIComponent);
  } catch {
    return null;
  }
}

/**
 * Asked before the page changes, by any means (a link, back and forward, a
 * typed address, signing out, another project): false keeps the page, and
 * the guard runs `leave` itself once the person agrees. The editor holds one
 * while it has unsaved changes.
 */
type LeaveGuard = (leave: () => void) => boolean;
let guard: LeaveGuard | null = null;

export function guardLeaving(next: LeaveGuard | null): void {
  guard = next;
}

/** Runs `action`, which leaves the page, now or once the guard agrees. */
export function leavePage(action: () => void): void {
  if (guard === null || guard(action)) action();
}

export function useRoute(): string[] | null {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = (event: HashChangeEvent) => {
      // The address has already changed: put it back without a new entry, and go on once the guard agrees.
      const to = new URL(event.newURL).hash;
      if (guard !== null && !guard(() => (location.hash = to))) {
        history.replaceState(history.state, '', event.oldURL);
        return;
      }
      setRoute(currentRoute());
    };
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function go(...parts: string[]): void {
  location.hash = href(...parts);
}
