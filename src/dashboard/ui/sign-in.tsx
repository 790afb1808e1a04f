import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { KeyList } from '../../keys/schema.ts';
import { ApiError, call } from './api.ts';

/** Why a key was refused, in words a person at 1 a.m. understands. */
function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Signing in failed; try again.';
  if (error.status === 403) return 'This is an SDK key (pwk_sdk_…). The dashboard needs a secret key (pwk_secret_…).';
  if (error.status === 401) return 'This key is unknown or has been revoked. Check that you pasted the whole secret key.';
  if (error.status === 429) return 'Too many attempts; wait a moment and try again.';
  return error.message;
}

export function SignIn(props: { notice: string | null; onSignedIn: (key: string, projectId: string) => void }): JSX.Element {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') return setError('Paste a secret key first.');
    if (/\s/.test(trimmed)) return setError('A key has no spaces; paste only the key.');
    setBusy(true);
    setError(null);
    try {
      const { body } = await call<KeyList>(trimmed, 'GET', '/api/keys', { signOutOn401: false });
      props.onSignedIn(trimmed, body.keys[0]?.project_id ?? '');
    } catch (failure) {
      setError(explain(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <form class="card" onSubmit={submit} aria-describedby="sign-in-help">
        <h1>paywalld</h1>
        <p id="sign-in-help" class="muted">
          Sign in with your project's <strong>secret key</strong> (<code>pwk_secret_…</code>), printed once when the server first started or made with{' '}
          <code>paywalld keys create --project ID --scope secret</code>. It stays in this tab only.
        </p>
        {props.notice ? (
          <p class="banner banner-info" role="status">
            {props.notice}
          </p>
        ) : null}
        <label for="secret-key">Secret key</label>
        <input
          id="secret-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          aria-invalid={error ? 'true' : 'false'}
          aria-describedby={error ? 'sign-in-error' : undefined}
        />
        {error ? (
          <p id="sign-in-error" class="banner banner-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
