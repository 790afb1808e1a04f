import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { AuditEntry, AuditPage } from '../../audit/schema.ts';
import { ACTIONS } from '../../shared/change.ts';
import { NotAllowed, useAccess } from './access.tsx';
import { call, enc } from './api.ts';
import { Problem, SelectField, when } from './widgets.tsx';

interface Filters {
  action: string;
  actor: string;
  target: string;
  since: string;
  until: string;
}

const NONE: Filters = { action: '', actor: '', target: '', since: '', until: '' };

function query(filters: Filters, cursor: string | null): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value.trim() !== '') params.set(name, value.trim());
  if (cursor) params.set('cursor', cursor);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The project's audit log, newest first: who changed what, when and from where, with filters and older pages. */
export function Activity({ secret, project }: { secret: string; project: string }): JSX.Element {
  const { can } = useAccess();
  const [filters, setFilters] = useState<Filters>(NONE);
  const [applied, setApplied] = useState<Filters>(NONE);
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async (cursor: string | null) => {
    setError(null);
    try {
      const { body } = await call<AuditPage>(secret, 'GET', `/api/projects/${enc(project)}/audit-log${query(applied, cursor)}`);
      setEntries((shown) => (cursor && shown ? [...shown, ...body.entries] : body.entries));
      setNext(body.next_cursor);
    } catch (failure) {
      setError(failure);
    }
  };
  useEffect(() => {
    if (can('analyze')) load(null);
  }, [secret, project, applied]);
  const set = (name: keyof Filters) => (value: string) => setFilters({ ...filters, [name]: value });
  const field = (name: 'actor' | 'target' | 'since' | 'until', label: string, type = 'text') => (
    <div class="field">
      <label for={`activity-${name}`}>{label}</label>
      <input id={`activity-${name}`} type={type} value={filters[name]} onInput={(e) => set(name)(e.currentTarget.value)} />
    </div>
  );
  return (
    <section aria-labelledby="activity-title">
      <div class="page-head">
        <h1 id="activity-title">Activity</h1>
      </div>
      <NotAllowed permission="analyze" what="Reading the activity log" />
      {can('analyze') ? (
        <form
          class="card fields"
          onSubmit={(event) => {
            event.preventDefault();
            setApplied(filters);
          }}
          aria-label="Filters"
        >
          <SelectField
            id="activity-action"
            label="Action"
            value={filters.action}
            onChange={set('action')}
            options={ACTIONS.map((action) => ({ value: action, label: action }))}
            leading={<option value="">any</option>}
          />
          {field('actor', 'Who (id)')}
          {field('target', 'Target (id)')}
          {field('since', 'From', 'date')}
          {field('until', 'To', 'date')}
          <button type="submit" class="button">
            Filter
          </button>
        </form>
      ) : null}
      <Problem error={error} />
      {entries === null ? null : entries.length === 0 ? (
        <p class="empty">Nothing matches.</p>
      ) : (
        <div class="table-wrap">
          <table class="table activity">
            <caption class="visually-hidden">Changes, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td data-label="When">{when(entry.at)}</td>
                  <td data-label="Who">
                    {entry.actor.label}{' '}
                    <span class="muted small">
                      ({entry.actor.type}
                      {entry.ip ? `, ${entry.ip}` : ''})
                    </span>
                  </td>
                  <td data-label="What">
                    <code>{entry.action}</code>
                  </td>
                  <td data-label="Change">{entry.summary}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next ? (
        <p>
          <button type="button" class="button" onClick={() => load(next)}>
            Older entries
          </button>
        </p>
      ) : null}
    </section>
  );
}
