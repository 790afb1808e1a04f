/**
 * The visual editor's panels as tabs (the ARIA tabs pattern: arrow keys
 * move between tabs, each shows its panel at once), under a toolbar with
 * undo and redo (also Ctrl/Cmd+Z and Shift+Ctrl/Cmd+Z) and the "Editing"
 * choice: all variants, or one variant whose edits become its overrides.
 * Every tab edits the same draft; the JSON tab is one of them.
 */
import type { JSX, Ref } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { ProductList } from '../../../products/schema.ts';
import { AudiencesPanel } from './audiences-panel.tsx';
import type { Path } from './json.ts';
import { JsonPanel } from './json-panel.tsx';
import { Outline } from './outline.tsx';
import type { PanelProps } from './panel.ts';
import { Properties } from './properties.tsx';
import type { TabId } from './reveal.ts';
import { variantsOf } from './scope.ts';
import { SlotsPanel } from './slots-panel.tsx';
import { StringsPanel } from './strings-panel.tsx';
import { ThemePanel } from './theme-panel.tsx';
import type { Draft } from './use-draft.ts';
import { VariantsPanel } from './variants-panel.tsx';

const TABS: readonly (readonly [TabId, string])[] = [
  ['design', 'Design'],
  ['strings', 'Strings'],
  ['slots', 'Products and slots'],
  ['variants', 'Variants'],
  ['audiences', 'Audiences'],
  ['theme', 'Theme'],
  ['json', 'JSON'],
];

interface WorkspaceProps {
  draft: Draft;
  panel: PanelProps;
  tab: TabId;
  onTab: (tab: TabId) => void;
  onScope: (variant: string | null) => void;
  selected: Path;
  onSelect: (path: Path) => void;
  products: ProductList['products'] | null;
  newPhase: boolean;
  /** Why nothing may change (the role), or null. */
  locked: string | null;
  textarea: Ref<HTMLTextAreaElement>;
}

export function Workspace(props: WorkspaceProps): JSX.Element {
  const { draft, panel, tab, onTab, onScope, selected, onSelect } = props;
  const tabs = useRef<HTMLDivElement>(null);
  const latest = useRef(draft);
  latest.current = draft;
  // Undo and redo from the keyboard, wherever the focus is but in the JSON text (which has its own).
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || props.locked) return;
      if ((event.target as HTMLElement | null)?.id === 'document') return;
      const key = event.key.toLowerCase();
      if (key === 'z' || key === 'y') {
        event.preventDefault();
        if (key === 'y' || event.shiftKey) latest.current.redo();
        else latest.current.undo();
      }
    };
    addEventListener('keydown', onKeyDown);
    return () => removeEventListener('keydown', onKeyDown);
  }, [props.locked]);

  const onTabKey = (event: KeyboardEvent) => {
    const index = TABS.findIndex(([id]) => id === tab);
    const to = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: TABS.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const [next] = TABS[(to + TABS.length) % TABS.length]!;
    onTab(next);
    requestAnimationFrame(() => tabs.current?.querySelector<HTMLElement>(`#tab-${next}`)?.focus());
  };
  const variants = variantsOf(panel.doc);
  let body: JSX.Element;
  if (tab === 'design') {
    body = (
      <div class="design-grid">
        <Outline {...panel} selected={selected} onSelect={onSelect} />
        <Properties {...panel} path={selected} onSelect={onSelect} />
      </div>
    );
  } else if (tab === 'strings') body = <StringsPanel {...panel} />;
  else if (tab === 'slots') body = <SlotsPanel {...panel} products={props.products} />;
  else if (tab === 'variants') body = <VariantsPanel {...panel} newPhase={props.newPhase} />;
  else if (tab === 'audiences') body = <AudiencesPanel {...panel} newPhase={props.newPhase} />;
  else if (tab === 'theme') body = <ThemePanel {...panel} />;
  else
    body = (
      <JsonPanel
        draft={draft}
        readOnly={props.locked !== null}
        invalid={panel.check.state === 'invalid' || panel.check.state === 'syntax'}
        textarea={props.textarea}
      />
    );
  return (
    <div class="workspace">
      <div class="toolbar row">
        <button type="button" class="button small" disabled={!draft.canUndo || props.locked !== null} onClick={draft.undo} aria-keyshortcuts="Control+Z Meta+Z">
          Undo
        </button>
        <button
          type="button"
          class="button small"
          disabled={!draft.canRedo || props.locked !== null}
          onClick={draft.redo}
          aria-keyshortcuts="Shift+Control+Z Shift+Meta+Z"
        >
          Redo
        </button>
        <div class="field inline">
          <label for="editing">Editing</label>
          <select id="editing" value={panel.scope ?? ''} onChange={(e) => onScope(e.currentTarget.value === '' ? null : e.currentTarget.value)}>
            <option value="">All variants</option>
            {variants.map((variant) => (
              <option key={String(variant.id)} value={String(variant.id)} disabled={variant.holdout === true}>
                {String(variant.id)}
                {variant.holdout === true ? ' (holdout: shows no paywall)' : ''}
              </option>
            ))}
          </select>
        </div>
        <span class="muted small">
          {panel.scope === null ? 'Edits change every variant that shows the paywall as it is.' : `Edits become variant ${panel.scope}'s overrides.`}
        </span>
      </div>
      {props.locked ? (
        <p class="banner banner-info" role="note">
          {props.locked} Every tab shows the paywall; nothing can be changed.
        </p>
      ) : panel.readOnly ? (
        <p class="banner banner-warning" role="status">
          {panel.readOnly}
        </p>
      ) : null}
      <div role="tablist" aria-label="Panels" class="tabs" ref={tabs} onKeyDown={onTabKey}>
        {TABS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={tab === id ? 'true' : 'false'}
            aria-controls={tab === id ? `panel-${id}` : undefined}
            tabIndex={tab === id ? 0 : -1}
            onClick={() => onTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} class="tabpanel">
        {body}
      </div>
    </div>
  );
}
