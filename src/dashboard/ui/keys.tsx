import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { CreatedKey, KeyInfo, KeyList } from '../../keys/schema.ts';
import { NotAllowed, useAccess } from './access.tsx';
import { call, enc } from './api.ts';
import { ago, Confirm, CopyButton, Problem, when } from './widgets.tsx';

export function Keys({ secret }: { secret: string }): JSX.Element {
  const { can } = useAccess();
  const [keys, setKeys] = useState<KeyInfo[] | null>(null);
  const [scope, setScope] = useState<'sdk' | 'secret'>('sdk');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<KeyInfo | null>(null);
  const [error, setError] = useState<unknown>(null);

  const refresh = () => call<KeyList>(secret, 'GET', '/api/keys').then(({ body }) => setKeys(body.keys), setError);
  useEffect(() => {
    if (can('analyze')) refresh();
  }, [secret]);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const { body } = await call<CreatedKey>(secret, 'POST', '/api/keys', { body: { scope, name: name.trim() } });
      setCreated(body);
      setName('');
      refresh();
    } catch (failure) {
      setError(failure);
    }
  };

  const revoke = async (key: KeyInfo) => {
    setRevoking(null);
    setError(null);
    try {
      await call(secret, 'DELETE', `/api/keys/${enc(key.id)}`);
      refresh();
    } catch (failure) {
      setError(failure);
    }
  };

  const isMine = (key: KeyInfo) => secret.startsWith(key.prefix);
  return (
    <section aria-labelledby="keys-title">
      <div class="page-head">
        <h1 id="keys-title">API keys</h1>
      </div>
      <p class="muted">
        <strong>sdk</strong> keys ship inside apps (resolve paywalls, send events); <strong>secret</strong> keys manage the project and must stay on servers and
        in this dashboard.
      </p>
      <Problem error={error} />
      <NotAllowed permission="analyze" what="Seeing the keys" />
      <NotAllowed permission="administer" what="Creating and revoking keys" />
      <form class="card" hidden={!can('administer')} onSubmit={create} aria-labelledby="new-key-title">
        <h2 id="new-key-title">New key</h2>
        <div class="fields">
          <div class="field">
            <label for="key-scope">Scope</label>
            <select id="key-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value as 'sdk' | 'secret')}>
              <option value="sdk">sdk (for apps)</option>
              <option value="secret">secret (management)</option>
            </select>
          </div>
          <div class="field">
            <label for="key-name">What it is for</label>
            <input id="key-name" value={name} maxLength={100} placeholder="iOS app, CI" onInput={(e) => setName(e.currentTarget.value)} />
          </div>
          <button type="submit" class="button primary">
            Create key
          </button>
        </div>
      </form>
      {created ? (
        <div class="banner banner-success created-key" role="status">
          <p>
            <strong>Your new {created.scope} key.</strong> Copy it now: it is shown only this once and cannot be recovered.
          </p>
          <div class="row">
            <label class="visually-hidden" for="created-key">
              New {created.scope} key
            </label>
            <input id="created-key" class="code" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={created.key} label="Copy key" />
            <button type="button" class="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      {!can('analyze') ? null : keys === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Scope</th>
                <th scope="col">For</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id} class={key.revoked_at ? 'revoked' : undefined}>
                  <td data-label="Key">
                    <code>{key.prefix}…</code>
                    {isMine(key) ? <span class="badge badge-draft">this session</span> : null}
                  </td>
                  <td data-label="Scope">{key.scope}</td>
                  <td data-label="For">{key.name || '—'}</td>
                  <td data-label="Created">{when(key.created_at)}</td>
                  <td data-label="Last used">{key.last_used_at ? ago(key.last_used_at) : 'never'}</td>
                  <td data-label="Status">{key.revoked_at ? `revoked ${when(key.revoked_at)}` : 'active'}</td>
                  <td class="actions">
                    {key.revoked_at || !can('administer') ? null : (
                      <button type="button" class="button small danger" onClick={() => setRevoking(key)}>
                        Revoke<span class="visually-hidden"> {key.prefix}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Confirm
        open={revoking !== null}
        title={`Revoke ${revoking?.prefix ?? ''}…?`}
        confirmLabel="Revoke key"
        danger
        onConfirm={() => revoking && revoke(revoking)}
        onCancel={() => setRevoking(null)}
      >
        <p>Every request with this key fails from now on. This cannot be undone.</p>
        {revoking && isMine(revoking) ? <p class="banner banner-warning">This is the key this dashboard is signed in with: you will be signed out.</p> : null}
      </Confirm>
    </section>
  );
}
