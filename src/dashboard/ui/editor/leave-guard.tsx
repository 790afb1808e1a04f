/**
 * A question before leaving the editor with unsaved changes: the browser's
 * own when the tab closes or reloads, and a dialog when a link of the
 * dashboard would open another page (the change of address is held until
 * the author says to leave).
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Confirm } from '../widgets.tsx';

export function LeaveGuard({ dirty }: { dirty: boolean }): JSX.Element {
  const [leaving, setLeaving] = useState<string | null>(null);
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    const onClick = (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.('a[href^="#/"]');
      if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || link.getAttribute('href') === location.hash) return;
      event.preventDefault();
      setLeaving(link.getAttribute('href'));
    };
    addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty]);
  return (
    <Confirm
      open={leaving !== null}
      title="Leave without saving?"
      confirmLabel="Leave and lose the changes"
      danger
      onConfirm={() => {
        const to = leaving;
        setLeaving(null);
        if (to !== null) location.hash = to;
      }}
      onCancel={() => setLeaving(null)}
    >
      <p>This paywall has changes that are not saved. Save them as a revision first, or leave and lose them.</p>
    </Confirm>
  );
}
