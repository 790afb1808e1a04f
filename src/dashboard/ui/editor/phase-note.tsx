import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { phaseStartWarning } from './phase-check.ts';

/** The publish question's note when publishing `revision` would start a new experiment phase; nothing otherwise. */
export function PhaseNote(props: { secret: string; id: string; revision: number | null; onError: (error: unknown) => void }): JSX.Element | null {
  const { secret, id, revision, onError } = props;
  const [warning, setWarning] = useState<string | null>(null);
  useEffect(() => {
    setWarning(null);
    if (revision === null) return;
    let current = true;
    phaseStartWarning(secret, id, revision).then((found) => current && setWarning(found), onError);
    return () => {
      current = false;
    };
  }, [secret, id, revision]);
  return warning === null ? null : <p class="banner banner-warning">{warning}</p>;
}
