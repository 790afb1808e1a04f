import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { Me } from '../../accounts/schema.ts';
import { ApiError, call } from './api.ts';
import { signedInPerson } from './sign-in.tsx';

/**
 * An invitation or password-reset link (`#/accept/TOKEN`): a new account's
 * email and password, or an existing account's own password, and the
 * person is signed in. The token stays in the fragment, which no request
 * line or server log carries.
 */
export function Accept({ token, onPerson }: { token: string; onPerson: (me: Me) => void }): JSX.Element {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { token, password, ...(email.trim() === '' ? {} : { email: email.trim() }), ...(name.trim() === '' ? {} : { name: name.trim() }) };
      await call('', 'POST', '/api/auth/accept', { body, signOutOn401: false });
      const me = await signedInPerson();
      if (me) onPerson(me);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const problem =
    error instanceof ApiError && error.status === 401
      ? 'That email has an account already: give its own password to add this role to it.'
      : error instanceof ApiError
        ? [error.message, ...error.errors.map((e) => `${e.path.slice(1)}: ${e.message}`)].join(' ')
        : error
          ? String(error)
          : null;
  return (
    <main class="sign-in">
      <form class="card" onSubmit={submit} aria-labelledby="accept-title">
        <h1 id="accept-title">Join paywalld</h1>
        <p class="muted">
          This link works once, for 72 hours. New here? Choose a password of at least 10 characters. Have an account? Give its password: the role is added to
          it.
        </p>
        <label for="accept-email">Email</label>
        <input id="accept-email" type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <small class="muted">The link's own email counts when it names one; the first owner's link asks for yours.</small>
        <label for="accept-name">Your name (optional)</label>
        <input id="accept-name" autocomplete="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="accept-password">Password</label>
        <input
          id="accept-password"
          type="password"
          autocomplete="new-password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          required
          aria-invalid={problem ? 'true' : 'false'}
          aria-describedby={problem ? 'accept-error' : undefined}
        />
        {problem ? (
          <p id="accept-error" class="banner banner-error" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Joining…' : 'Join'}
        </button>
      </form>
    </main>
  );
}
