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

export function useRoute(): string[] | null {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute(currentRoute());
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
