import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PaywallDetail, PaywallInfo, PaywallWritten, Published, RevisionDetail } from '../../../paywalls/schema.ts';
import type { ProductList } from '../../../products/schema.ts';
import { rolesAllowing } from '../../../shared/roles.ts';
import { NotAllowed, useAccess } from '../access.tsx';
import { ApiError, call, enc } from '../api.ts';
import { href } from '../route.ts';
import { Problem, StatusBadge } from '../widgets.tsx';
import { ConflictBanner } from './conflict-banner.tsx';
import { History } from './history.tsx';
import { isObject, type JsonObject, type Path } from './json.ts';
import { LeaveGuard } from './leave-guard.tsx';
import { locate } from './locate.ts';
import { pathFromId } from './outline-model.ts';
import { PhaseNote } from './phase-note.tsx';
import { Preview } from './preview.tsx';
import { Problems } from './problems.tsx';
import { PublishConfirm } from './publish-confirm.tsx';
import { placeOf, type TabId } from './reveal.ts';
import { defaultLocale, type Scope, variantIndex, variantsOf } from './scope.ts';
import { splitChanged, weightSum } from './split-edits.ts';
import { useCheck } from './use-check.ts';
import { useDraft } from './use-draft.ts';
import { Workspace } from './workspace.tsx';

/** Someone saved in between: their revision, kept beside the author's draft until the author decides. */
interface Conflict {
  doc: JsonObject;
  etag: string | null;
  revision: number;
}

/**
 * The paywall editor: the document in a visual editor and as JSON (one
 * draft, tabs over it), checked by the server's own validation as the
 * author edits, saved with If-Match so that a change made elsewhere
 * meanwhile is shown instead of overwritten; publish, revisions, and the
 * live preview beside it.
 */
export function Editor({ secret, id }: { secret: string; id: string }): JSX.Element {
  const { can, role } = useAccess();
  const editable = can('edit');
  const draft = useDraft();
  const [info, setInfo] = useState<PaywallInfo | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [busy, setBusy] = useState(false);
  /** The revision the author asked to publish, until they confirm or cancel. */
  const [asked, setAsked] = useState<number | null>(null);
  const [version, setVersion] = useState(0);
  const [products, setProducts] = useState<ProductList['products'] | null>(null);
  const [live, setLive] = useState<JsonObject | null>(null);
  const [scope, setScope] = useState<Scope>(null);
  const [variant, setVariant] = useState('');
  const [locale, setLocale] = useState('');
  const [selected, setSelected] = useState<Path>([]);
  const [tab, setTab] = useState<TabId>('design');
  const textarea = useRef<HTMLTextAreaElement>(null);
  const { check, valid, setCheck } = useCheck(secret, id, info ? draft.doc : null, draft.syntax, setError);
  const doc = draft.doc;

  /** Reads the paywall; the draft becomes its document only when asked (a publish from the revisions keeps the author's draft). */
  const load = async (intoDraft = true) => {
    const answer = await call<PaywallDetail>(secret, 'GET', `/api/paywalls/${enc(id)}`);
    const { document, ...rest } = answer.body;
    if (intoDraft) draft.reset(document as unknown as JsonObject);
    setEtag(answer.etag);
    setInfo(rest);
  };
  useEffect(() => {
    load().catch(setError);
    call<ProductList>(secret, 'GET', '/api/products').then(({ body }) => setProducts(body.products), setError);
  }, [secret, id]);
  // The live revision's split, to say whether publishing the draft starts a new experiment phase.
  const liveRevision = info?.status === 'archived' ? null : (info?.live_revision ?? null);
  useEffect(() => {
    setLive(null);
    if (liveRevision === null) return;
    call<RevisionDetail>(secret, 'GET', `/api/paywalls/${enc(id)}/revisions/${liveRevision}`).then(
      ({ body }) => setLive(body.document as unknown as JsonObject),
      setError,
    );
  }, [secret, id, liveRevision]);
  // A variant removed (or renamed) while it was being edited: back to all variants.
  useEffect(() => {
    if (scope !== null && variantIndex(doc, scope) < 0) setScope(null);
  }, [doc, scope]);

  const choose = (next: Scope) => {
    setScope(next);
    setVariant(next ?? '');
  };
  const reveal = (pointer: string) => {
    const place = tab === 'json' ? { tab: 'json' as const } : placeOf(pointer);
    if (place.variant !== undefined) choose(String(variantsOf(doc)[place.variant]?.id ?? '') || null);
    if (place.node) setSelected(place.node);
    setTab(place.tab);
    if (place.tab !== 'json') return;
    requestAnimationFrame(() => {
      const span = locate(draft.text, pointer);
      const element = textarea.current;
      if (!span || !element) return;
      element.focus();
      element.setSelectionRange(span.start, span.end);
      const lineHeight = parseFloat(getComputedStyle(element).lineHeight) || 18;
      element.scrollTop = Math.max(0, (span.line - 4) * lineHeight);
    });
  };

  const save = async (overwrite?: Conflict) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    const tag = overwrite ? overwrite.etag : etag;
    try {
      const answer = await call<PaywallWritten>(secret, 'PUT', `/api/paywalls/${enc(id)}`, { body: doc, headers: tag ? { 'if-match': tag } : {} });
      const { warnings, ...rest } = answer.body;
      setInfo(rest);
      setEtag(answer.etag);
      draft.saved();
      setConflict(null);
      setVersion((n) => n + 1);
      setNotice(`Saved as revision ${rest.revision}${warnings.length ? ` with ${warnings.length} warning(s)` : ''}. It is a draft until you publish it.`);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 412) {
        const answer = await call<PaywallDetail>(secret, 'GET', `/api/paywalls/${enc(id)}`);
        setConflict({ doc: answer.body.document as unknown as JsonObject, etag: answer.etag, revision: answer.body.revision });
      } else if (failure instanceof ApiError && failure.status === 422) {
        setCheck({ state: 'invalid', errors: failure.errors, warnings: [] });
        setError(new Error('Not saved: the document is invalid. The problems are listed beside the editor.'));
      } else {
        setError(failure);
      }
    } finally {
      setBusy(false);
    }
  };

  const publish = async () => {
    if (!info) return;
    setAsked(null);
    setBusy(true);
    setError(null);
    try {
      const answer = await call<Published>(secret, 'POST', `/api/paywalls/${enc(id)}/publish`, {
        body: { revision: info.revision },
        headers: etag ? { 'if-match': etag } : {},
      });
      setInfo(answer.body);
      setEtag(answer.etag);
      setVersion((n) => n + 1);
      const { phase } = answer.body;
      setNotice(
        `Revision ${answer.body.revision} is live: apps get it from the next resolve.` +
          (phase.started && phase.number > 1 ? ` It started experiment phase ${phase.number}: results start empty.` : ''),
      );
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 412
          ? new Error('Someone changed this paywall since you opened it. Save your edit (you will see their change) or reload.')
          : failure,
      );
    } finally {
      setBusy(false);
    }
  };

  const takeTheirs = () => {
    if (!conflict) return;
    draft.reset(conflict.doc);
    setEtag(conflict.etag);
    setConflict(null);
    setVersion((n) => n + 1);
    load(false).catch(setError);
  };

  if (!info) {
    return (
      <section>
        <p>
          <a href={href('paywalls')}>← Paywalls</a>
        </p>
        {error ? <Problem error={error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }
  const dirty = draft.dirty;
  const canPublish = !dirty && info.live_revision !== info.revision;
  const sum = weightSum(doc);
  const locked = editable ? null : `Editing needs the ${rolesAllowing('edit')} role; you are ${role} in this project.`;
  const readOnly =
    locked ??
    (draft.syntax ? 'The JSON has a syntax error: fix it on the JSON tab. Meanwhile the other tabs show the last document that parsed, read-only.' : null);
  return (
    <section class="editor-page" aria-labelledby="editor-title">
      <div class="page-head">
        <div>
          <p class="crumbs">
            <a href={href('paywalls')}>← Paywalls</a>
          </p>
          <h1 id="editor-title">
            {info.name} <StatusBadge status={info.status} />
          </h1>
          <p class="muted small">
            <code>{info.id}</code> · newest r{info.revision} · live {info.live_revision === null ? 'none' : `r${info.live_revision}`}
            {dirty ? ' · unsaved changes' : ''}
          </p>
        </div>
        <div class="row">
          <button type="button" class="button primary" disabled={busy || !editable || !dirty || draft.syntax !== null || sum !== 100} onClick={() => save()}>
            Save revision
          </button>
          <button
            type="button"
            class="button"
            disabled={busy || !editable || !canPublish}
            onClick={() => setAsked(info.revision)}
            title={dirty ? 'Save first: publishing makes the newest saved revision live' : undefined}
          >
            Publish r{info.revision}
          </button>
          {dirty && sum !== 100 ? <p class="error-text small">The weights add up to {sum}, not 100: see Variants.</p> : null}
        </div>
      </div>
      <PublishConfirm
        revision={asked}
        live={info.live_revision}
        notes={<PhaseNote secret={secret} id={id} revision={asked} onError={setError} />}
        onConfirm={publish}
        onCancel={() => setAsked(null)}
      />
      {notice ? (
        <p class="banner banner-success" role="status">
          {notice}
        </p>
      ) : null}
      <Problem error={error} />
      <NotAllowed permission="edit" what="Saving and publishing revisions" />
      {conflict ? (
        <ConflictBanner revision={conflict.revision} theirs={conflict.doc} mine={doc} onTakeTheirs={takeTheirs} onSaveMine={() => save(conflict)} />
      ) : null}
      <div class="editor-grid">
        <div class="editor-main">
          <Workspace
            draft={draft}
            panel={{ doc, scope, locale: locale || defaultLocale(doc), edit: draft.edit, check, readOnly }}
            tab={tab}
            onTab={setTab}
            onScope={choose}
            selected={selected}
            onSelect={setSelected}
            products={products}
            newPhase={live !== null && isObject(live) && splitChanged(doc, live)}
            locked={locked}
            textarea={textarea}
          />
          <Problems id="problems" check={check} onReveal={reveal} />
        </div>
        <div class="editor-side">
          <Preview
            secret={secret}
            id={id}
            draft={valid}
            liveRevision={liveRevision}
            variant={variant}
            onVariant={setVariant}
            locale={locale}
            onLocale={setLocale}
            onPick={(path) => {
              setSelected(pathFromId(path));
              setTab('design');
            }}
          />
          <History
            secret={secret}
            id={id}
            version={version}
            etag={etag}
            onPublished={(tag) => {
              setEtag(tag);
              setVersion((n) => n + 1);
              load(false).catch(setError);
              setNotice('Published.');
            }}
          />
        </div>
      </div>
      <LeaveGuard dirty={dirty} />
    </section>
  );
}
