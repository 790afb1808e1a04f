import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Me } from '../../accounts/schema.ts';
import type { KeyList } from '../../keys/schema.ts';
import { ApiError, call, sessionCredential } from './api.ts';

/** Why a key was refused, in words a person at 1 a.m. understands. */
function explainKey(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Signing in failed; try again.';
  if (error.status === 403) return 'This is an SDK key (pwk_sdk_…). The dashboard needs a secret key (pwk_secret_…).';
  if (error.status === 401) return 'This key is unknown or has been revoked. Check that you pasted the whole secret key.';
  if (error.status === 429) return 'Too many attempts; wait a moment and try again.';
  return error.message;
}

function explainPassword(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Signing in failed; try again.';
  if (error.status === 401) return 'The email or the password is wrong.';
  if (error.code === 'sign_in_throttled') return `${error.message}. An owner can also send you a new link (paywalld users reset-password).`;
  return error.message;
}

/** Who this browser's session cookie signs in; null when nobody. */
export async function signedInPerson(): Promise<Me | null> {
  try {
    return (await call<Me>(sessionCredential(''), 'GET', '/api/auth/me', { signOutOn401: false })).body;
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 401) return null;
    throw failure;
  }
}

export function SignIn(props: { notice: string | null; onPerson: (me: Me) => void; onKey: (key: string, projectId: string) => void }): JSX.Element {
  const [withKey, setWithKey] = useState(false);
  return (
    <main class="sign-in">
      <div class="card">
        <h1>paywalld</h1>
        {props.notice ? (
          <p class="banner banner-info" role="status">
            {props.notice}
          </p>
        ) : null}
        {withKey ? <KeyForm onKey={props.onKey} /> : <PasswordForm onPerson={props.onPerson} />}
        <p class="small">
          <button type="button" class="link" onClick={() => setWithKey(!withKey)}>
            {withKey ? 'Sign in with your email and password' : 'Sign in with an API key'}
          </button>
        </p>
      </div>
    </main>
  );
}

function PasswordForm({ onPerson }: { onPerson: (me: Me) => void }): JSX.Element {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call('', 'POST', '/api/auth/login', { body: { email, password }, signOutOn401: false });
      const me = await signedInPerson();
      if (me) onPerson(me);
      else setError('Signed in, but the browser did not keep the session: allow cookies for this site.');
    } catch (failure) {
      setError(explainPassword(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-describedby="sign-in-help">
      <p id="sign-in-help" class="muted">
        Sign in as yourself. An owner invites you from <strong>Members</strong>; the first owner's link is printed when the server first starts.
      </p>
      <label for="email">Email</label>
      <input id="email" type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
      <label for="password">Password</label>
      <input
        id="password"
        type="password"
        autocomplete="current-password"
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
        required
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
  );
}

function KeyForm({ onKey }: { onKey: (key: string, projectId: string) => void }): JSX.Element {
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
      onKey(trimmed, body.keys[0]?.project_id ?? '');
    } catch (failure) {
      setError(explainKey(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-describedby="key-help">
      <p id="key-help" class="muted">
        For automation and the first minutes: a project's <strong>secret key</strong> (<code>pwk_secret_…</code>), printed once when the server first started or
        made with <code>paywalld keys create --project ID --scope secret</code>. It stays in this tab only.
      </p>
      <label for="secret-key">Secret key</label>
      <input
        id="secret-key"
        type="password"
        autocomplete="off"
        spellcheck={false}
        value={key}
        onInput={(event) => setKey(event.currentTarget.value)}
        aria-invalid={error ? 'true' : 'false'}
        aria-describedby={error ? 'key-error' : undefined}
      />
      {error ? (
        <p id="key-error" class="banner banner-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" class="button primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in with the key'}
      </button>
    </form>
  );
}
