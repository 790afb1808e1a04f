import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RevisionDetail, RevisionInfo, RevisionList } from '../../../paywalls/schema.ts';
import { useAccess } from '../access.tsx';
import { ApiError, call, enc } from '../api.ts';
import { Problem, SelectField, when } from '../widgets.tsx';
import { DiffView } from './diff-view.tsx';
import { PhaseNote } from './phase-note.tsx';
import { PublishConfirm } from './publish-confirm.tsx';

const pretty = (document: unknown) => JSON.stringify(document, null, 2);

/** The revisions of a paywall: publish any one (an older one is a rollback) and compare two. */
export function History(props: {
  secret: string;
  id: string;
  /** Bumped by the editor whenever a revision is added or published. */
  version: number;
  etag: string | null;
  onPublished: (etag: string | null) => void;
}): JSX.Element {
  const editable = useAccess().can('edit');
  const [revisions, setRevisions] = useState<RevisionInfo[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [rollback, setRollback] = useState<number | null>(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [diff, setDiff] = useState<{ before: string; after: string; label: string } | null>(null);

  useEffect(() => {
    call<RevisionList>(props.secret, 'GET', `/api/paywalls/${enc(props.id)}/revisions`).then(({ body }) => {
      setRevisions(body.revisions);
      const newest = body.revisions[0]?.revision;
      const live = body.revisions.find((r) => r.live)?.revision;
      if (newest !== undefined) {
        setTo(String(newest));
        setFrom(String(live !== undefined && live !== newest ? live : (body.revisions[1]?.revision ?? newest)));
      }
    }, setError);
  }, [props.secret, props.id, props.version]);

  const publish = async (revision: number) => {
    setRollback(null);
    setError(null);
    try {
      const headers: Record<string, string> = props.etag ? { 'if-match': props.etag } : {};
      const answer = await call(props.secret, 'POST', `/api/paywalls/${enc(props.id)}/publish`, { body: { revision }, headers });
      props.onPublished(answer.etag);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 412
          ? new Error('Someone changed this paywall since you opened it; reload the page to see their change before publishing.')
          : failure,
      );
    }
  };

  const compare = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const [a, b] = await Promise.all([from, to].map((n) => call<RevisionDetail>(props.secret, 'GET', `/api/paywalls/${enc(props.id)}/revisions/${n}`)));
      setDiff({ before: pretty(a!.body.document), after: pretty(b!.body.document), label: `Changes from r${from} to r${to}` });
    } catch (failure) {
      setError(failure);
    }
  };
  const revisionOptions = revisions.map((r) => ({ value: String(r.revision), label: `r${r.revision}` }));

  return (
    <section class="history" aria-labelledby="history-title">
      <h2 id="history-title">Revisions</h2>
      <Problem error={error} />
      <ol class="revisions" reversed>
        {revisions.map((r) => (
          <li key={r.revision}>
            <span class="rev">r{r.revision}</span>
            {r.live ? <span class="badge badge-live">live</span> : null}
            <span class="muted small">
              {when(r.created_at)}
              {r.created_by ? ` by ${r.created_by.label}` : ''}
            </span>
            {r.live || !editable ? null : (
              <button type="button" class="button small" onClick={() => setRollback(r.revision)}>
                {r.revision === revisions[0]?.revision ? 'Publish this' : 'Roll back to this'}
                <span class="visually-hidden"> r{r.revision}</span>
              </button>
            )}
          </li>
        ))}
      </ol>
      {revisions.length > 1 ? (
        <form class="compare" onSubmit={compare}>
          <SelectField id="diff-from" label="From" value={from} onChange={setFrom} options={revisionOptions} />
          <SelectField id="diff-to" label="To" value={to} onChange={setTo} options={revisionOptions} />
          <button type="submit" class="button">
            Compare
          </button>
        </form>
      ) : null}
      {diff ? <DiffView {...diff} /> : null}
      <PublishConfirm
        revision={rollback}
        live={revisions.find((r) => r.live)?.revision ?? null}
        notes={<PhaseNote secret={props.secret} id={props.id} revision={rollback} onError={setError} />}
        onConfirm={publish}
        onCancel={() => setRollback(null)}
      />
    </section>
  );
}
