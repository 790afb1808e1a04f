import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Delivery, DeliveryPage } from '../../webhooks/schema.ts';
import { useAccess } from './access.tsx';
import { call, enc } from './api.ts';
import { when } from './widgets.tsx';

/** What the last attempt came to, in a few words. */
function outcome(delivery: Delivery): string {
  if (delivery.attempts === 0) return 'not tried yet';
  if (delivery.error !== null) return delivery.response_status === null ? delivery.error : `${delivery.response_status}: ${delivery.error}`;
  return `answered ${delivery.response_status}`;
}

/** One endpoint's recent deliveries, newest first, with their status and last answer; an owner sends one again. */
export function Deliveries({ secret, webhook, onError }: { secret: string; webhook: string; onError: (error: unknown) => void }): JSX.Element {
  const { can } = useAccess();
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const load = async (cursor: string | null) => {
    try {
      const { body } = await call<DeliveryPage>(secret, 'GET', `/api/webhooks/${enc(webhook)}/deliveries${cursor ? `?cursor=${enc(cursor)}` : ''}`);
      setDeliveries((shown) => (cursor && shown ? [...shown, ...body.deliveries] : body.deliveries));
      setNext(body.next_cursor);
    } catch (failure) {
      onError(failure);
    }
  };
  useEffect(() => {
    load(null);
  }, [secret, webhook]);
  const retry = async (delivery: Delivery) => {
    try {
      await call(secret, 'POST', `/api/webhooks/${enc(webhook)}/deliveries/${enc(delivery.id)}/retry`);
      await load(null);
    } catch (failure) {
      onError(failure);
    }
  };
  return (
    <section class="card" aria-labelledby="deliveries-title">
      <div class="row">
        <h2 id="deliveries-title">Deliveries to {webhook}</h2>
        <button type="button" class="button small" onClick={() => load(null)}>
          Refresh
        </button>
      </div>
      {deliveries === null ? (
        <p class="muted">Loading…</p>
      ) : deliveries.length === 0 ? (
        <p class="empty">Nothing sent yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="table deliveries">
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Happened</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => (
                <tr key={delivery.id}>
                  <td data-label="Event">
                    <code>{delivery.type}</code>
                  </td>
                  <td data-label="Happened">{when(delivery.created_at)}</td>
                  <td data-label="Status">
                    <span class={`badge badge-${delivery.status === 'succeeded' ? 'live' : delivery.status === 'failed' ? 'warning' : 'draft'}`}>
                      {delivery.status}
                    </span>
                  </td>
                  <td data-label="Attempts">{delivery.attempts}</td>
                  <td data-label="Last answer">{outcome(delivery)}</td>
                  <td data-label="Next attempt">{when(delivery.next_attempt_at)}</td>
                  <td class="actions">
                    {can('administer') && delivery.status !== 'pending' ? (
                      <button type="button" class="button small" onClick={() => retry(delivery)}>
                        Send again<span class="visually-hidden"> {delivery.id}</span>
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next ? (
        <p>
          <button type="button" class="button" onClick={() => load(next)}>
            Older deliveries
          </button>
        </p>
      ) : null}
    </section>
  );
}
