/**
 * A question before leaving the editor with unsaved changes: the browser's
 * own when the tab closes or reloads, and a dialog for every way of leaving
 * within the dashboard (see guardLeaving in route.ts).
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { guardLeaving } from '../route.ts';
import { Confirm } from '../widgets.tsx';

export function LeaveGuard({ dirty }: { dirty: boolean }): JSX.Element {
  const [leaving, setLeaving] = useState<(() => void) | null>(null);
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    // A link is held before it adds an entry to the history; every other way is held by the guard.
    const onClick = (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.('a[href^="#/"]');
      if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || link.getAttribute('href') === location.hash) return;
      event.preventDefault();
      const to = link.getAttribute('href')!;
      setLeaving(() => () => (location.hash = to));
    };
    addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    guardLeaving((leave) => {
      setLeaving(() => leave);
      return false;
    });
    return () => {
      removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
      guardLeaving(null);
    };
  }, [dirty]);
  return (
    <Confirm
      open={leaving !== null}
      title="Leave without saving?"
      confirmLabel="Leave and lose the changes"
      danger
      onConfirm={() => {
        const leave = leaving;
        setLeaving(null);
        guardLeaving(null);
        leave?.();
      }}
      onCancel={() => setLeaving(null)}
    >
      <p>This paywall has changes that are not saved. Save them as a revision first, or leave and lose them.</p>
    </Confirm>
  );
}
