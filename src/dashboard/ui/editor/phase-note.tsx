import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type PhaseEffect, phaseEffect, phaseSentence } from './phase-check.ts';

/** The publish question's note on the experiment phase: a warning when publishing `revision` starts a new one, a plain line when it keeps it, nothing before the first publish. */
export function PhaseNote(props: { secret: string; id: string; revision: number | null; onError: (error: unknown) => void }): JSX.Element | null {
  const { secret, id, revision, onError } = props;
  const [effect, setEffect] = useState<PhaseEffect>(null);
  useEffect(() => {
    setEffect(null);
    if (revision === null) return;
    let current = true;
    phaseEffect(secret, id, revision).then((found) => current && setEffect(found), onError);
    return () => {
      current = false;
    };
  }, [secret, id, revision]);
  if (effect === null || revision === null) return null;
  return <p class={effect.starts ? 'banner banner-warning' : 'banner banner-info'}>{phaseSentence(revision, effect)}</p>;
}
