/**
 * The server's verdict on the draft, asked after a short pause in the
 * editing (POST /api/paywalls/{id}/validate): the same rules a save
 * applies, errors and warnings at their JSON pointers. The last document it
 * accepted is what the preview draws.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PaywallInput } from '../../../paywalls/document/schema.ts';
import type { DraftValidation } from '../../../paywalls/draft/schema.ts';
import { ApiError, call, enc } from '../api.ts';
import type { JsonObject } from './json.ts';
import type { Check } from './problems.tsx';
import type { SyntaxProblem } from './use-draft.ts';

/** Long enough to not send a request per keystroke, short enough to feel live. */
const CHECK_DELAY_MS = 300;

export function useCheck(
  secret: string,
  id: string,
  doc: JsonObject | null,
  syntax: SyntaxProblem | null,
  onError: (error: unknown) => void,
): { check: Check; valid: PaywallInput | null; setCheck: (check: Check) => void } {
  const [check, setCheck] = useState<Check>({ state: 'checking', errors: [], warnings: [] });
  const [valid, setValid] = useState<PaywallInput | null>(null);
  const sequence = useRef(0);
  useEffect(() => {
    if (syntax) {
      sequence.current++;
      setCheck({ state: 'syntax', errors: [], warnings: [], syntax });
      return;
    }
    if (doc === null) return;
    const mine = ++sequence.current;
    const timer = setTimeout(async () => {
      setCheck((previous) => ({ ...previous, state: 'checking' }));
      try {
        const { body } = await call<DraftValidation>(secret, 'POST', `/api/paywalls/${enc(id)}/validate`, { body: doc });
        if (mine !== sequence.current) return;
        setCheck({ state: 'valid', errors: [], warnings: body.warnings });
        // The server accepted it: a paywall document as written.
        setValid(doc as unknown as PaywallInput);
      } catch (failure) {
        if (mine !== sequence.current) return;
        if (failure instanceof ApiError && failure.status === 422) setCheck({ state: 'invalid', errors: failure.errors, warnings: [] });
        else onError(failure);
      }
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [doc, syntax, secret, id]);
  return { check, valid, setCheck };
}
