import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../webhooks/event-types.ts';
import type { CreatedWebhook, Webhook, WebhookList } from '../../webhooks/schema.ts';
import { NotAllowed, useAccess } from './access.tsx';
import { call, enc } from './api.ts';
import { Deliveries } from './webhook-deliveries.tsx';
import { Confirm, CopyButton, Problem, when } from './widgets.tsx';

interface Draft {
  id: string;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
}

const EMPTY: Draft = { id: '', url: '', events: [], enabled: true };

/** The project's webhook endpoints (docs/guide/webhooks.md): owners add, change, test and delete them; analysts see them and their deliveries. */
export function Webhooks({ secret }: { secret: string }): JSX.Element {
  const { can } = useAccess();
  const [webhooks, setWebhooks] = useState<Webhook[] | null>(null);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState(false);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const [tested, setTested] = useState(0);
  const [error, setError] = useState<unknown>(null);

  const refresh = () => call<WebhookList>(secret, 'GET', '/api/webhooks').then(({ body }) => setWebhooks(body.webhooks), setError);
  useEffect(() => {
    if (can('analyze')) refresh();
  }, [secret]);

  const attempt = async (action: () => Promise<void>) => {
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    }
  };
  const save = (event: Event) => {
    event.preventDefault();
    return attempt(async () => {
      const { status, body } = await call<CreatedWebhook | Webhook>(secret, 'PUT', `/api/webhooks/${enc(draft.id.trim())}`, {
        body: { url: draft.url.trim(), events: draft.events, enabled: draft.enabled },
      });
      if (status === 201) setCreated(body as CreatedWebhook);
      setDraft(EMPTY);
      setEditing(false);
      setShown(body.id);
      await refresh();
    });
  };
  const test = (webhook: Webhook) =>
    attempt(async () => {
      await call(secret, 'POST', `/api/webhooks/${enc(webhook.id)}/test`);
      setShown(webhook.id);
      setTested((n) => n + 1);
    });
  const remove = (webhook: Webhook) =>
    attempt(async () => {
      setDeleting(null);
      await call(secret, 'DELETE', `/api/webhooks/${enc(webhook.id)}`);
      if (shown === webhook.id) setShown(null);
      await refresh();
    });
  const toggle = (type: WebhookEvent, on: boolean) =>
    setDraft({ ...draft, events: on ? [...draft.events, type] : draft.events.filter((other) => other !== type) });

  return (
    <section aria-labelledby="webhooks-title">
      <div class="page-head">
        <h1 id="webhooks-title">Webhooks</h1>
      </div>
      <p class="muted">
        paywalld tells your other systems what happened: each event is sent to the endpoints that subscribe to it, signed (Standard Webhooks), and retried for
        24 hours until they answer 2xx.
      </p>
      <Problem error={error} />
      <NotAllowed permission="analyze" what="Seeing the webhooks" />
      <NotAllowed permission="administer" what="Adding, changing, testing and deleting webhooks" />
      <form class="card" hidden={!can('administer')} onSubmit={save} aria-labelledby="webhook-form-title">
        <h2 id="webhook-form-title">{editing ? `Change ${draft.id}` : 'New endpoint'}</h2>
        <div class="fields">
          <div class="field">
            <label for="webhook-id">Name</label>
            <input
              id="webhook-id"
              value={draft.id}
              readOnly={editing}
              required
              maxLength={64}
              placeholder="crm"
              onInput={(e) => setDraft({ ...draft, id: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="webhook-url">URL</label>
            <input
              id="webhook-url"
              type="url"
              value={draft.url}
              required
              placeholder="https://hooks.example.com/paywalld"
              onInput={(e) => setDraft({ ...draft, url: e.currentTarget.value })}
            />
          </div>
        </div>
        <fieldset class="fields">
          <legend>Events</legend>
          {WEBHOOK_EVENTS.map((type) => (
            <label key={type} class="row">
              <input type="checkbox" checked={draft.events.includes(type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />
              <code>{type}</code>
            </label>
          ))}
        </fieldset>
        <div class="row">
          <label class="row">
            <input type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.currentTarget.checked })} />
            Enabled
          </label>
          <button type="submit" class="button primary" disabled={draft.events.length === 0}>
            {editing ? 'Save endpoint' : 'Add endpoint'}
          </button>
          {editing ? (
            <button
              type="button"
              class="button"
              onClick={() => {
                setDraft(EMPTY);
                setEditing(false);
              }}
            >
              Cancel
            </button>
          ) : null}
        </div>
      </form>
      {created ? (
        <div class="banner banner-success created-key" role="status">
          <p>
            <strong>The signing secret of {created.id}.</strong> Copy it now into the receiver: it is shown only this once.
          </p>
          <div class="row">
            <label class="visually-hidden" for="webhook-secret">
              Signing secret
            </label>
            <input id="webhook-secret" class="code" readOnly value={created.secret} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={created.secret} label="Copy secret" />
            <button type="button" class="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      {!can('analyze') ? null : webhooks === null ? (
        <p class="muted">Loading…</p>
      ) : webhooks.length === 0 ? (
        <p class="empty">No endpoint yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Changed</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((webhook) => (
                <tr key={webhook.id}>
                  <td data-label="Name">{webhook.id}</td>
                  <td data-label="URL">
                    <code>{webhook.url}</code>
                  </td>
                  <td data-label="Events">{webhook.events.join(', ')}</td>
                  <td data-label="Status">{webhook.enabled ? 'enabled' : 'disabled'}</td>
                  <td data-label="Changed">{when(webhook.updated_at)}</td>
                  <td class="actions">
                    <div class="row end">
                      <button type="button" class="button small" onClick={() => setShown(webhook.id)}>
                        Deliveries<span class="visually-hidden"> of {webhook.id}</span>
                      </button>
                      {can('administer') ? (
                        <>
                          <button type="button" class="button small" onClick={() => test(webhook)}>
                            Send test<span class="visually-hidden"> to {webhook.id}</span>
                          </button>
                          <button
                            type="button"
                            class="button small"
                            onClick={() => {
                              setDraft({ id: webhook.id, url: webhook.url, events: webhook.events, enabled: webhook.enabled });
                              setEditing(true);
                            }}
                          >
                            Change<span class="visually-hidden"> {webhook.id}</span>
                          </button>
                          <button type="button" class="button small danger" onClick={() => setDeleting(webhook)}>
                            Delete<span class="visually-hidden"> {webhook.id}</span>
                          </button>
                        </>
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown && can('analyze') ? <Deliveries key={`${shown} ${tested}`} secret={secret} webhook={shown} onError={setError} /> : null}
      <Confirm
        open={deleting !== null}
        title={`Delete ${deleting?.id ?? ''}?`}
        confirmLabel="Delete endpoint"
        danger
        onConfirm={() => deleting && remove(deleting)}
        onCancel={() => setDeleting(null)}
      >
        <p>Its deliveries go with it, sent or not: nothing more is sent to {deleting?.url}.</p>
      </Confirm>
    </section>
  );
}
