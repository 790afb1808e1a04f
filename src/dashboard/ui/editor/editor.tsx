import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PaywallInput } from '../../../paywalls/document/schema.ts';
import type { DraftValidation } from '../../../paywalls/draft/schema.ts';
import type { PaywallDetail, PaywallInfo, PaywallWritten, Published } from '../../../paywalls/schema.ts';
import { NotAllowed, useAccess } from '../access.tsx';
import { ApiError, call, enc } from '../api.ts';
import { href } from '../route.ts';
import { Problem, StatusBadge } from '../widgets.tsx';
import { DiffView } from './diff-view.tsx';
import { History } from './history.tsx';
import { locate, syntaxLine } from './locate.ts';
import { PhaseNote } from './phase-note.tsx';
import { Preview } from './preview.tsx';
import { type Check, Problems } from './problems.tsx';
import { PublishConfirm } from './publish-confirm.tsx';

const pretty = (document: unknown) => JSON.stringify(document, null, 2);
/** Long enough to not send a request per keystroke, short enough to feel live. */
const CHECK_DELAY_MS = 300;

/** Someone saved in between: their revision, kept beside the author's text until the author decides. */
interface Conflict {
  text: string;
  etag: string | null;
  revision: number;
}

/**
 * The paywall editor: the document as JSON, checked by the server's own
 * validation as the author types, saved with If-Match so that a change made
 * elsewhere meanwhile is shown instead of overwritten; publish, revisions,
 * and the live preview.
 */
export function Editor({ secret, id }: { secret: string; id: string }): JSX.Element {
  const editable = useAccess().can('edit');
  const [info, setInfo] = useState<PaywallInfo | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [saved, setSaved] = useState('');
  const [check, setCheck] = useState<Check>({ state: 'checking', errors: [], warnings: [] });
  const [valid, setValid] = useState<PaywallInput | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [busy, setBusy] = useState(false);
  /** The revision the author asked to publish, until they confirm or cancel. */
  const [asked, setAsked] = useState<number | null>(null);
  const [version, setVersion] = useState(0);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const sequence = useRef(0);

  const load = async () => {
    const answer = await call<PaywallDetail>(secret, 'GET', `/api/paywalls/${enc(id)}`);
    const { document, ...rest } = answer.body;
    setInfo(rest);
    setEtag(answer.etag);
    return pretty(document);
  };

  useEffect(() => {
    load().then((loaded) => {
      setText(loaded);
      setSaved(loaded);
    }, setError);
  }, [secret, id]);

  // Validation as the author types: the server's own rules, after a short pause.
  useEffect(() => {
    if (text === '') return;
    const mine = ++sequence.current;
    const timer = setTimeout(async () => {
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch (failure) {
        const message = (failure as Error).message;
        setCheck({ state: 'syntax', errors: [], warnings: [], syntax: { message, line: syntaxLine(text, message) } });
        return;
      }
      setCheck((previous) => ({ ...previous, state: 'checking' }));
      try {
        const { body } = await call<DraftValidation>(secret, 'POST', `/api/paywalls/${enc(id)}/validate`, { body: document });
        if (mine !== sequence.current) return;
        setCheck({ state: 'valid', errors: [], warnings: body.warnings });
        // The server accepted it: a paywall document as written.
        setValid(document as PaywallInput);
      } catch (failure) {
        if (mine !== sequence.current) return;
        if (failure instanceof ApiError && failure.status === 422) setCheck({ state: 'invalid', errors: failure.errors, warnings: [] });
        else setError(failure);
      }
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, secret, id]);

  const reveal = (pointer: string) => {
    const span = locate(text, pointer);
    const element = textarea.current;
    if (!span || !element) return;
    element.focus();
    element.setSelectionRange(span.start, span.end);
    const lineHeight = parseFloat(getComputedStyle(element).lineHeight) || 18;
    element.scrollTop = Math.max(0, (span.line - 4) * lineHeight);
  };

  const save = async (overwrite?: Conflict) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      setBusy(false);
      return setError(new Error('The document is not valid JSON; fix the syntax error first.'));
    }
    const tag = overwrite ? overwrite.etag : etag;
    try {
      const answer = await call<PaywallWritten>(secret, 'PUT', `/api/paywalls/${enc(id)}`, {
        body: document,
        headers: tag ? { 'if-match': tag } : {},
      });
      const { warnings, ...rest } = answer.body;
      setInfo(rest);
      setEtag(answer.etag);
      setSaved(text);
      setConflict(null);
      setVersion((n) => n + 1);
      setNotice(`Saved as revision ${rest.revision}${warnings.length ? ` with ${warnings.length} warning(s)` : ''}. It is a draft until you publish it.`);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 412) {
        const answer = await call<PaywallDetail>(secret, 'GET', `/api/paywalls/${enc(id)}`);
        setConflict({ text: pretty(answer.body.document), etag: answer.etag, revision: answer.body.revision });
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
    setText(conflict.text);
    setSaved(conflict.text);
    setEtag(conflict.etag);
    setConflict(null);
    setVersion((n) => n + 1);
    load().catch(setError);
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
  const dirty = text !== saved;
  const canPublish = !dirty && info.live_revision !== info.revision;
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
          <button type="button" class="button primary" disabled={busy || !editable || !dirty || check.state === 'syntax'} onClick={() => save()}>
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
        <div class="banner banner-warning" role="alert">
          <p>
            <strong>Someone else saved revision {conflict.revision}</strong> while you were editing. Your text was not saved and is still in the editor.
            Compare, then keep theirs or save yours over it.
          </p>
          <DiffView before={conflict.text} after={text} label={`Their r${conflict.revision} (−) against your text (+)`} />
          <div class="row">
            <button type="button" class="button" onClick={takeTheirs}>
              Discard mine, load theirs
            </button>
            <button type="button" class="button danger" onClick={() => save(conflict)}>
              Save mine as r{conflict.revision + 1}
            </button>
          </div>
        </div>
      ) : null}
      <div class="editor-grid">
        <div class="editor-main">
          <label for="document" class="editor-label">
            Document (JSON)
          </label>
          <textarea
            id="document"
            ref={textarea}
            class="code"
            spellcheck={false}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            aria-describedby="problems"
            aria-invalid={check.state === 'invalid' || check.state === 'syntax' ? 'true' : 'false'}
          />
          <Problems id="problems" check={check} onReveal={reveal} />
        </div>
        <div class="editor-side">
          <Preview secret={secret} id={id} draft={valid} liveRevision={info.status === 'archived' ? null : info.live_revision} />
          <History
            secret={secret}
            id={id}
            version={version}
            etag={etag}
            onPublished={(tag) => {
              setEtag(tag);
              setVersion((n) => n + 1);
              load().catch(setError);
              setNotice('Published.');
            }}
          />
        </div>
      </div>
    </section>
  );
}
